# The fragmentation experiment (issue #3): placement of trace pods one at a time.
gantry_library(gantry_sim_fragmentation
  SOURCES fragmentation_experiment.cpp fragmentation_export.cpp
  DEPS gantry_policy gantry_store gantry_sim_results)
