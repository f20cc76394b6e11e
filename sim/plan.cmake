# Capacity plans (kind: Plan): the cheapest pool sizes whose simulated service levels hold, per
# forecast step, found by bisection over monotone capacity (sim/plan/).
gantry_library(gantry_sim_plan
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/plan/plan_loader.cpp ${CMAKE_CURRENT_LIST_DIR}/plan/plan_variant.cpp
          ${CMAKE_CURRENT_LIST_DIR}/plan/plan_evaluator.cpp ${CMAKE_CURRENT_LIST_DIR}/plan/plan_search.cpp
          ${CMAKE_CURRENT_LIST_DIR}/plan/plan_result.cpp ${CMAKE_CURRENT_LIST_DIR}/plan/plan_run.cpp
  DEPS gantry_sim_sweep)
