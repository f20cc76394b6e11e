gantry_test(gantry_plan_tests
  SOURCES plan/plan_test.cpp
  DEPS gantry_sim_plan gantry_report)
