# Request-level serving (sim/serving.cmake): queues, metrics, sources, the service run.
gantry_test(gantry_serving_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/serving/serving_parts_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/serving/service_run_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/serving/spec_tuner_test.cpp
  DEPS gantry_sim_serving)

# Services on a scenario's cluster (sim/serving/cluster_host.hpp, sim/simulation.cpp).
gantry_test(gantry_services_on_cluster_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/serving/services_on_cluster_test.cpp
  DEPS gantry_sim_world gantry_sim_scenario gantry_traces)

# gantry tune on the shipped example against its exhaustive grid.
gantry_test(gantry_tune_shipped_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/serving/tune_shipped_test.cpp
  DEPS gantry_sim_scenario gantry_traces)
target_compile_definitions(gantry_tune_shipped_tests PRIVATE GANTRY_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
