# spec.autoscaling: node pools and the cluster autoscaler's settings (engine/policy/autoscale/).
gantry_library(gantry_sim_pools
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/node_pool_loader.cpp
  DEPS gantry_sim_scenario gantry_autoscale)
