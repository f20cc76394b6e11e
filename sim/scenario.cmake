# Scenario files (kind: Scenario) -> ScenarioSpec; experiment files (kind: Experiment) ->
# ExperimentSpec; either, told apart by kind, for `gantry simulate`; admission files (kind:
# Admission) -> AdmissionConfig, for `gantry serve --world kube --admission`; spec.autoscaling
# (node_pool_loader) and spec.failures (sim/faults.cmake) are read here too, and so are inference
# services (serving/service_loader: spec.workload.services; serving/service_file: kind:
# InferenceService files).
gantry_library(gantry_sim_scenario
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/scenario_loader.cpp ${CMAKE_CURRENT_LIST_DIR}/cluster_loader.cpp
          ${CMAKE_CURRENT_LIST_DIR}/workload_loader.cpp ${CMAKE_CURRENT_LIST_DIR}/scenario_values.cpp
          ${CMAKE_CURRENT_LIST_DIR}/admission_loader.cpp ${CMAKE_CURRENT_LIST_DIR}/admission_file.cpp
          ${CMAKE_CURRENT_LIST_DIR}/experiment_loader.cpp ${CMAKE_CURRENT_LIST_DIR}/fragmentation_spec_loader.cpp
          ${CMAKE_CURRENT_LIST_DIR}/simulation_file.cpp
          ${CMAKE_CURRENT_LIST_DIR}/gang_fit.cpp ${CMAKE_CURRENT_LIST_DIR}/placement_constraints_loader.cpp
          ${CMAKE_CURRENT_LIST_DIR}/node_pool_loader.cpp
          ${CMAKE_CURRENT_LIST_DIR}/serving/service_loader.cpp
          ${CMAKE_CURRENT_LIST_DIR}/serving/service_file.cpp
  DEPS gantry_config gantry_config_resources gantry_cluster gantry_policy gantry_autoscale
       gantry_sim_faults)
