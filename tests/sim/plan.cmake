gantry_test(gantry_plan_tests
  SOURCES plan/plan_test.cpp
  DEPS gantry_sim_plan gantry_report)

# The M/M/c plan against Erlang C: 20,000-job runs, about 5 s; the sanitizer pass skips it.
gantry_test(gantry_plan_queueing_tests
  SOURCES plan/plan_queueing_test.cpp
  DEPS gantry_sim_plan
  LABELS slow)
