#include "engine/policy/action_log.hpp"

#include <bit>
#include <nlohmann/json.hpp>

namespace gantry {

namespace {

using Json = nlohmann::ordered_json;

Json head(Time at, const char* kind, JobId workload) {
  Json j;
  j["t"] = format_rfc3339(at);
  j["kind"] = kind;
  j["workload"] = workload;
  return j;
}

void write(std::ostream& out, const Json& line) { out << line.dump() << '\n'; }

}  // namespace

Json ActionLog::pods_json(const std::vector<PodPlacement>& pods,
                          const std::vector<Resources>& requests, int32_t first_pod) const {
  Json out = Json::array();
  for (size_t i = 0; i < pods.size(); ++i) {
    const PodPlacement& p = pods[i];
    Json gpus = Json::array();
    for (uint64_t bits = p.gpu_mask; bits != 0; bits &= bits - 1)
      gpus.push_back(std::countr_zero(bits));
    Json pod;
    pod["pod"] = first_pod + static_cast<int32_t>(i);
    pod["node"] = cluster_.node_info(p.node).name;
    pod["gpus"] = std::move(gpus);
    pod["gpuMilli"] = i < requests.size() ? requests[i].gpu_milli : 0;
    out.push_back(std::move(pod));
  }
  return out;
}

void ActionLog::bind(Time at, const BindAction& action) {
  Json j = head(at, "bind", action.job);
  j["pods"] = pods_json(action.pods, action.requests, 0);
  write(out_, j);
}

void ActionLog::evict(Time at, const EvictAction& action) {
  Json j = head(at, "evict", action.job);
  j["reason"] = action.reason;
  if (action.by >= 0) j["by"] = action.by;
  write(out_, j);
}

void ActionLog::resize(Time at, const ResizeAction& action) {
  Json j = head(at, "resize", action.job);
  j["replicas"] = action.replicas;
  if (!action.removed.empty()) j["removed"] = action.removed;
  if (!action.added.empty())
    j["pods"] = pods_json(action.added, action.requests, action.first_added);
  if (!action.reason.empty()) j["reason"] = action.reason;
  write(out_, j);
}

void ActionLog::observation(const Observation& o) {
  Json j;
  j["t"] = format_rfc3339(o.at);
  j["kind"] = to_string(o.kind);
  if (o.job >= 0) j["workload"] = o.job;
  if (o.pod >= 0) j["pod"] = o.pod;
  if (o.node >= 0 && o.node < cluster_.node_count()) j["node"] = cluster_.node_info(o.node).name;
  if (o.exit_code != 0) j["exitCode"] = o.exit_code;
  if (!o.reason.empty()) j["reason"] = o.reason;
  if (o.deadline > o.at)
    j[o.kind == Observation::Kind::kEvicted ? "notBefore" : "deadline"] =
        format_rfc3339(o.deadline);
  if (o.kind == Observation::Kind::kMetric) {
    j["name"] = o.name;
    j["value"] = o.value;
  }
  write(out_, j);
}

void ActionLog::scale(Time at, const ScaleRecord& r) {
  Json j;
  j["t"] = format_rfc3339(at);
  j["kind"] = "scale";
  j["service"] = r.service;
  j["predictor"] = r.predictor;
  j["ready"] = r.ready;
  j["starting"] = r.starting;
  j["from"] = r.from;
  j["to"] = r.to;
  if (r.observed) {
    const auto of = [&](ServingMetric m) { return (*r.observed)[static_cast<size_t>(m)]; };
    j["observed"] = {{"requests", of(ServingMetric::kArrivals)},
                     {"concurrencySeconds", of(ServingMetric::kConcurrency)},
                     {"gpuBusySeconds", of(ServingMetric::kGpuBusy)},
                     {"slotsBusySeconds", of(ServingMetric::kSlotsBusy)}};
  }
  write(out_, j);
}

}  // namespace gantry
