# The results database of `gantry simulate`.
gantry_test(gantry_results_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/results_writer_test.cpp
  DEPS gantry_sim_results)
