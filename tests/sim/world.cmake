gantry_test(gantry_world_tests
  SOURCES training_world_test.cpp world_eviction_test.cpp world_resize_test.cpp summary_test.cpp
          run_series_test.cpp world_builder_test.cpp world_admission_test.cpp world_fault_test.cpp
          reliability_summary_test.cpp world_elastic_fault_test.cpp node_pools_test.cpp
          cost_summary_test.cpp
  DEPS gantry_sim_world)
