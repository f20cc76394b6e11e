# Request-level inference serving (serving/README.md): request sources, replica queues, the
# autoscalers' metrics, node caches and cold starts, the service run and its standalone driver.
gantry_library(gantry_sim_serving
  SOURCES
    serving/metric_buckets.cpp
    serving/request_source.cpp
    serving/node_cache.cpp
    serving/service_run.cpp
    serving/first_fit_host.cpp
    serving/serving_simulation.cpp
    serving/service_json.cpp
    serving/spec_tuner.cpp
  DEPS gantry_serving_policy gantry_policy gantry_metrics gantry_cluster nlohmann_json::nlohmann_json)
