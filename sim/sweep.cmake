# Sweeps (kind: Sweep): a base scenario varied along axes, every combination run over seeds on
# every core, figures with confidence intervals, results stored run by run (sim/sweep/).
gantry_library(gantry_sim_sweep
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/sweep/document_path.cpp ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_loader.cpp
          ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_metrics.cpp ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_variants.cpp
          ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_stats.cpp ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_store.cpp
          ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_runner.cpp ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_summary.cpp
          ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_shards.cpp ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_documents.cpp
          ${CMAKE_CURRENT_LIST_DIR}/sweep/sweep_wire.cpp ${CMAKE_CURRENT_LIST_DIR}/sweep/load_growth.cpp
  DEPS gantry_sim_world gantry_sim_scenario gantry_store gantry_core yaml-cpp nlohmann_json::nlohmann_json fmt::fmt)
