gantry_library(gantry_sim_world
  SOURCES simulation_log.cpp training_world.cpp training_world_faults.cpp world_builder.cpp simulation.cpp summary.cpp results_export.cpp results_stream.cpp
          json_report.cpp run_series.cpp queue_summary.cpp reliability_summary.cpp node_pools.cpp
          cost_summary.cpp serving/cluster_host.cpp serving/serving_driver.cpp
  DEPS gantry_sim_serving gantry_policy gantry_sim_physics gantry_sim_throughput gantry_sim_workload gantry_metrics
       gantry_sim_results gantry_sim_faults gantry_autoscale gantry_sim_scenario)
