# The fragmentation experiment (issue #3): placement of trace pods one at a time, and the runner
# of an Experiment file's pod lists.
gantry_library(gantry_sim_fragmentation
  SOURCES fragmentation_experiment.cpp fragmentation_export.cpp experiment_runner.cpp
          experiment_json.cpp
  DEPS gantry_policy gantry_store gantry_sim_results nlohmann_json::nlohmann_json)
