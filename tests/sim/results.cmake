# The results database of `gantry simulate`.
gantry_test(gantry_results_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/results_writer_test.cpp
  DEPS gantry_sim_results)

# What the reports and the results database make of a run: per-queue figures, the JSON report's
# queues and job list, the database's admission tables (on the hand-built run of
# tests/sim/queue_fixtures.hpp).
gantry_test(gantry_report_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/queue_summary_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/json_report_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/results_export_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/results_stream_test.cpp
  DEPS gantry_sim_world gantry_store)
