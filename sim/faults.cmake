# Failures and maintenance (issue #13): the failure model a scenario declares (fault_spec,
# read by fault_loader from spec.failures), the events it draws (fault_process) and the
# --events file of gantry simulate (fault_events). Engine only, plus the config reader, so the
# scenario loader and the world can both depend on it.
gantry_library(gantry_sim_faults
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/fault_event.cpp ${CMAKE_CURRENT_LIST_DIR}/fault_spec.cpp
          ${CMAKE_CURRENT_LIST_DIR}/fault_process.cpp ${CMAKE_CURRENT_LIST_DIR}/fault_loader.cpp
          ${CMAKE_CURRENT_LIST_DIR}/fault_events.cpp
  DEPS gantry_config gantry_cluster)
