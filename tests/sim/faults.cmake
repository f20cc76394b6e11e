# Failures and maintenance (sim/faults.cmake): the failure model and its Llama 3 preset, the
# events it draws, the spec.failures reader and the --events file.
gantry_test(gantry_fault_tests
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/fault_spec_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/fault_process_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/fault_loader_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/fault_events_test.cpp
  DEPS gantry_sim_faults)
