#pragma once
// The cluster as GET /cluster, /cluster/queue and the "cluster" events show it (web/API.md,
// "Cluster"): nodes with their GPUs and who holds each, and the pending gangs with why each
// waits. Names, never the scheduler's internal ids alone (issue #26 §5): a pipeline task's gang
// ("nightly/train@2026-01-01T00:00:00Z#2", adapters/simcluster/cluster_task_executor.hpp) is
// also given as its pipeline, task, logical time and attempt.

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "web/server/serve_world.hpp"

namespace gantry::web {

// Is there a pipeline of this name (so that "a/b@..." names one of its task's gangs)?
using IsPipeline = std::function<bool(const std::string&)>;

// {"name", "pipeline", "task", "logicalTime", "attempt"} of a workload's name; the last four
// null for a gang that is not a pipeline task's. "attempt" counts from 1 (the name's index + 1).
nlohmann::json workload_identity(const std::string& name, const IsPipeline& is_pipeline);

// A node of GET /cluster; each allocated GPU has "holders": [{"workload", identity...}].
nlohmann::json node_json(const ServeWorld& world, NodeId n, const IsPipeline& is_pipeline);
// GET /cluster: GPU types, racks with their nodes, totals.
nlohmann::json cluster_json(const ServeWorld& world, const IsPipeline& is_pipeline);
// GET /cluster/queue: the pending gangs, oldest first, each with ServeWorld::pending_reason()
// (or its last reason when the world has none).
nlohmann::json queue_json(const ServeWorld& world, const IsPipeline& is_pipeline);

}  // namespace gantry::web
