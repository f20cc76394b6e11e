#include "adapters/kube/model/kube_node.hpp"

#include <algorithm>
#include <bit>

#include "adapters/kube/model/gpu_product.hpp"
#include "adapters/kube/model/object_fields.hpp"
#include "adapters/kube/model/quantity.hpp"
#include "engine/config/units.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

KubeNode parse_node(const nlohmann::json& node) {
  ObjectFields f(node, "Node");
  KubeNode out;
  out.name = f.name();
  out.uid = f.string("metadata.uid");
  out.resource_version = f.string("metadata.resourceVersion");
  out.labels = f.string_map("metadata.labels");
  out.taints = f.taints("spec.taints");
  out.unschedulable = f.boolean("spec.unschedulable");
  out.allocatable.cpu_milli = f.quantity("status.allocatable", "cpu", 1000);
  out.allocatable.memory_bytes = f.quantity("status.allocatable", "memory", 1);
  const int64_t gpus = f.quantity("status.allocatable", std::string(kGpuResource), 1);
  if (gpus > 64) f.fail("status.allocatable." + std::string(kGpuResource), "more than 64 GPUs");
  out.allocatable.gpus = static_cast<int32_t>(gpus);
  const auto label = [&](std::string_view key) {
    const auto it = out.labels.find(std::string(key));
    return it == out.labels.end() ? std::string() : it->second;
  };
  out.gpu_product = label(kGpuProductLabel);
  out.rack = label(kRackLabel);
  if (out.rack.empty()) out.rack = label(kZoneLabel);
  out.node_class = label(kNodeClassLabel);
  const Labels annotations = f.string_map("metadata.annotations");
  if (const auto it = annotations.find(std::string(kDrainRequestAnnotation));
      it != annotations.end())
    out.drain_request = it->second;
  if (const auto it = annotations.find(std::string(kDrainStateAnnotation)); it != annotations.end())
    out.drain_state = it->second;
  if (const auto it = annotations.find(std::string(kUnhealthyGpusAnnotation));
      it != annotations.end() && !it->second.empty()) {
    const std::string field = "metadata.annotations." + std::string(kUnhealthyGpusAnnotation);
    const std::string& list = it->second;
    size_t start = 0;
    while (start <= list.size()) {
      const size_t comma = std::min(list.find(',', start), list.size());
      const std::string item = list.substr(start, comma - start);
      const std::optional<int64_t> g = parse_quantity(item);
      if (!g || *g < 0 || *g > 63 || std::to_string(*g) != item)
        f.fail(field, "'" + item + "' is not a GPU index from 0 to 63");
      out.unhealthy_gpus |= uint64_t{1} << *g;
      start = comma + 1;
    }
  }
  // Islands are of the node's GPUs, including those out of service.
  const int all_gpus = out.allocatable.gpus + std::popcount(out.unhealthy_gpus);
  if (all_gpus > 64) f.fail("status.allocatable." + std::string(kGpuResource), "more than 64 GPUs");
  if (all_gpus > 0) {
    out.island_size = all_gpus;
    if (const std::string island = label(kIslandLabel); !island.empty()) {
      const std::optional<int64_t> n = parse_quantity(island);
      if (!n || *n < 1 || all_gpus % *n != 0)
        f.fail("metadata.labels." + std::string(kIslandLabel),
               "'" + island + "' is not a number of GPUs that divides the node's " +
                   std::to_string(all_gpus));
      out.island_size = static_cast<int>(*n);
    }
  }
  const nlohmann::json& conditions = f.array("status.conditions");
  for (size_t i = 0; i < conditions.size(); ++i) {
    const std::string field = "status.conditions[" + std::to_string(i) + "]";
    if (!conditions[i].is_object()) f.fail(field, "expected a condition");
    if (f.member(conditions[i], "type", field) == "Ready")
      out.ready = f.member(conditions[i], "status", field) == "True";
  }
  return out;
}

std::string drain_request_value(Duration deadline, Duration maintenance,
                                const std::string& requested) {
  // nlohmann's json sorts object keys; written by hand to keep the documented order.
  return "{\"deadline\":" + nlohmann::json(format_duration_exact(deadline)).dump() +
         ",\"for\":" + nlohmann::json(format_duration_exact(maintenance)).dump() +
         ",\"requested\":" + nlohmann::json(requested).dump() + "}";
}

std::string check_drain_duration(const std::string& text, bool maintenance, Duration& out) {
  const Result<Duration> d = parse_duration(text, kMaxDrainDuration);
  if (!d) return d.error();
  if (maintenance && d.value() <= Duration(0))
    return "'" + text + "': the maintenance must be above 0";
  out = d.value();
  return {};
}

DrainRequest parse_drain_request(const KubeNode& node) {
  const std::string field = "metadata.annotations." + std::string(kDrainRequestAnnotation);
  const auto fail = [&](const std::string& where, const std::string& message) {
    throw InputError(SourceLocation{"Node " + node.name}, field + where, message);
  };
  const nlohmann::json j = nlohmann::json::parse(node.drain_request, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    fail("", "expected {\"deadline\":\"2h\",\"for\":\"4h\",\"requested\":\"<RFC 3339>\"}");
  for (const auto& [key, value] : j.items())
    if (key != "deadline" && key != "for" && key != "requested")
      fail("." + key, "unknown field (expected deadline, for, requested)");
  const auto text = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_string()) fail(std::string(".") + key, "expected a string");
    return j[key].get<std::string>();
  };
  DrainRequest r;
  if (const std::string e = check_drain_duration(text("deadline"), false, r.deadline); !e.empty())
    fail(".deadline", e);
  if (const std::string e = check_drain_duration(text("for"), true, r.maintenance); !e.empty())
    fail(".for", e);
  r.requested = text("requested");
  if (!read_rfc3339(r.requested)) fail(".requested", std::string(kRfc3339Malformed));
  return r;
}

std::string drain_state_value(const std::string& requested, const std::string& state, Time at,
                              const std::string& reason) {
  std::string out = "{\"requested\":" + nlohmann::json(requested).dump() +
                    ",\"state\":" + nlohmann::json(state).dump() +
                    ",\"at\":" + nlohmann::json(format_rfc3339(at)).dump();
  if (!reason.empty()) out += ",\"reason\":" + nlohmann::json(reason).dump();
  return out + "}";
}

std::string drain_state_requested(const KubeNode& node) {
  const nlohmann::json j = nlohmann::json::parse(node.drain_state, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("requested") || !j["requested"].is_string())
    return {};
  return j["requested"].get<std::string>();
}

}  // namespace gantry::kube
