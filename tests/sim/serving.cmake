# Request-level serving (sim/serving.cmake): queues, metrics, sources, the service run.
gantry_test(gantry_serving_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/serving/serving_parts_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/serving/service_run_test.cpp
  DEPS gantry_sim_serving)
