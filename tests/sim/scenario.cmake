# Loading kind: Scenario and kind: Experiment files. Test files live in tests/data/scenarios/.
gantry_test(gantry_scenario_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/scenario_loader_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/experiment_loader_test.cpp
  DEPS gantry_sim_scenario)

gantry_test(gantry_constraints_scenario_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/constraints_scenario_test.cpp
  DEPS gantry_sim_scenario gantry_sim_world)

# spec.policy.admission and the admission keys of jobs; generated jobs carry their class's queue;
# kind: Admission files.
gantry_test(gantry_admission_loader_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/admission_loader_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/admission_file_test.cpp
  DEPS gantry_sim_scenario gantry_sim_workload)

# Elastic jobs, restart policies, checkpoint costs and the restart delay.
gantry_test(gantry_elastic_jobs_loader_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/elastic_jobs_loader_test.cpp
  DEPS gantry_sim_scenario)

# spec.policy.elasticity.
gantry_test(gantry_elasticity_loader_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/elasticity_loader_test.cpp
  DEPS gantry_sim_scenario)

# Inference services: spec.workload.services (sim/serving/service_loader.hpp) and kind:
# InferenceService files.
gantry_test(gantry_service_loader_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/serving/service_loader_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/serving/service_file_test.cpp
  DEPS gantry_sim_scenario)
