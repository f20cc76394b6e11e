# The results database of `gantry simulate` (SQLite through engine/store).
gantry_library(gantry_sim_results
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/results_writer.cpp
  DEPS gantry_store gantry_cluster)
