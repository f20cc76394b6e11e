#include "web/server/cluster_json.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include "engine/core/time.hpp"

namespace gantry::web {

nlohmann::json workload_identity(const std::string& name, const IsPipeline& is_pipeline) {
  nlohmann::json out = {{"name", name},
                        {"pipeline", nullptr},
                        {"task", nullptr},
                        {"logicalTime", nullptr},
                        {"attempt", nullptr}};
  // "pipeline/task@logical#attempt": the pipeline is the part before the first '/', the attempt
  // after the last '#', the logical time between the last '@' and it.
  const size_t slash = name.find('/');
  const size_t at = name.rfind('@');
  const size_t hash = name.rfind('#');
  if (slash == std::string::npos || at == std::string::npos || hash == std::string::npos ||
      !(slash < at && at < hash) || !is_pipeline(name.substr(0, slash)))
    return out;
  out["pipeline"] = name.substr(0, slash);
  out["task"] = name.substr(slash + 1, at - slash - 1);
  out["logicalTime"] = name.substr(at + 1, hash - at - 1);
  const std::string attempt = name.substr(hash + 1);
  const bool digits = !attempt.empty() && std::all_of(attempt.begin(), attempt.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; });
  // The name counts attempts from 0; people (the runs page, the Run JSON's order) from 1.
  out["attempt"] = digits ? nlohmann::json(std::stoi(attempt) + 1) : nlohmann::json(attempt);
  return out;
}

nlohmann::json node_json(const ServeWorld& world, NodeId n, const IsPipeline& is_pipeline) {
  const Cluster& c = world.cluster();
  const Resources& cap = c.node_class(n).capacity;
  const Resources& free = c.free(n);
  // Who holds each GPU: the owners of the node's allocations, by the GPUs of their masks.
  std::vector<nlohmann::json> holders(static_cast<size_t>(c.gpu_count(n)), nlohmann::json::array());
  for (const AllocationOwner& o : c.owners_on(n)) {
    const Allocation* a = c.allocation_of(o);
    if (a == nullptr || a->gpu_mask == 0) continue;
    const Workload* w = world.scheduler().workloads().find(o.workload);
    nlohmann::json who =
        workload_identity(w != nullptr ? w->spec->name : std::string(), is_pipeline);
    who["workload"] = o.workload;
    who["pod"] = o.pod;
    who["milli"] = a->request.shares_gpu() ? a->request.gpu_milli : 1000;
    for (int g = 0; g < c.gpu_count(n); ++g)
      if ((a->gpu_mask >> g) & 1U) holders[static_cast<size_t>(g)].push_back(who);
  }
  nlohmann::json gpus = nlohmann::json::array();
  for (int g = 0; g < c.gpu_count(n); ++g) {
    auto& h = holders[static_cast<size_t>(g)];
    std::sort(h.begin(), h.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
      return std::tie(a["workload"], a["pod"]) < std::tie(b["workload"], b["pod"]);
    });
    gpus.push_back({{"index", g},
                    {"allocatedMilli", 1000 - c.gpu_free_milli(n, g)},
                    {"holders", std::move(h)}});
  }
  const GpuTypeId type = c.gpu_type_of(n);
  return {{"name", c.node_info(n).name},
          {"rack", c.topology().racks[static_cast<size_t>(c.rack_of(n))]},
          {"gpuType",
           type >= 0 ? nlohmann::json(c.topology().gpus.at(type).name) : nlohmann::json(nullptr)},
          {"cordoned", c.cordoned(n)},
          {"ready", c.ready(n)},
          {"cpu",
           {{"capacityMilli", cap.cpu_milli}, {"allocatedMilli", cap.cpu_milli - free.cpu_milli}}},
          {"memory",
           {{"capacityBytes", cap.memory_bytes},
            {"allocatedBytes", cap.memory_bytes - free.memory_bytes}}},
          {"gpus", std::move(gpus)}};
}

nlohmann::json cluster_json(const ServeWorld& world, const IsPipeline& is_pipeline) {
  const Cluster& c = world.cluster();
  const Topology& topo = c.topology();
  nlohmann::json racks = nlohmann::json::array();
  for (size_t r = 0; r < topo.racks.size(); ++r)
    racks.push_back({{"name", topo.racks[r]}, {"nodes", nlohmann::json::array()}});
  int64_t allocated_milli = 0;
  for (NodeId n = 0; n < c.node_count(); ++n) {
    if (c.removed(n)) continue;
    nlohmann::json node = node_json(world, n, is_pipeline);
    for (const auto& g : node["gpus"]) allocated_milli += g["allocatedMilli"].get<int64_t>();
    racks[static_cast<size_t>(c.rack_of(n))]["nodes"].push_back(std::move(node));
  }
  nlohmann::json types = nlohmann::json::array();
  for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(topo.gpus.size()); ++t)
    if (c.total_gpus(t) > 0)
      types.push_back({{"name", topo.gpus.at(t).name}, {"count", c.total_gpus(t)}});
  return {{"gpuTypes", std::move(types)},
          {"racks", std::move(racks)},
          {"totals", {{"gpus", c.total_gpus()}, {"allocatedMilli", allocated_milli}}}};
}

nlohmann::json queue_json(const ServeWorld& world, const IsPipeline& is_pipeline) {
  nlohmann::json pending = nlohmann::json::array();
  std::vector<const Workload*> waiting;
  world.scheduler().workloads().for_each([&](const Workload& w) {
    if (w.state == WorkloadState::kPending) waiting.push_back(&w);
  });
  std::sort(waiting.begin(), waiting.end(), [](const Workload* a, const Workload* b) {
    return std::tie(a->history.back().at, a->id) < std::tie(b->history.back().at, b->id);
  });
  for (const Workload* w : waiting) {
    const Resources total = w->spec->total_request();
    const std::string now = world.pending_reason(w->id);
    nlohmann::json gang = workload_identity(w->spec->name, is_pipeline);
    gang["workload"] = w->id;
    gang["gpus"] = total.gpus;
    gang["gpuMilli"] = total.gpu_milli;
    gang["pods"] = w->spec->pod_requests().size();
    gang["gpuType"] =
        w->spec->gpu_type.empty() ? nlohmann::json(nullptr) : nlohmann::json(w->spec->gpu_type);
    gang["since"] = format_rfc3339(w->history.back().at);
    gang["reason"] = now.empty() ? w->last_reason : now;
    pending.push_back(std::move(gang));
  }
  return {{"pending", std::move(pending)}};
}

}  // namespace gantry::web
