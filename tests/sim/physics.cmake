gantry_test(gantry_physics_tests SOURCES step_time_test.cpp checkpoint_model_test.cpp
            DEPS gantry_sim_physics)
gantry_test(gantry_throughput_tests SOURCES step_time_throughput_test.cpp
            DEPS gantry_sim_throughput)
