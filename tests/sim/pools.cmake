# spec.autoscaling (sim/node_pool_loader.hpp).
gantry_test(gantry_pools_loader_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/node_pool_loader_test.cpp
  DEPS gantry_sim_scenario)
