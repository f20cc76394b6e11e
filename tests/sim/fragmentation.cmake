gantry_test(gantry_fragmentation_tests
  SOURCES fragmentation_experiment_test.cpp
  DEPS gantry_sim_fragmentation)
