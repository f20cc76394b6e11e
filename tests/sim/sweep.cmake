gantry_test(gantry_sweep_tests
  SOURCES sweep/document_path_test.cpp sweep/sweep_loader_test.cpp sweep/sweep_test.cpp
  DEPS gantry_sim_sweep gantry_report)
