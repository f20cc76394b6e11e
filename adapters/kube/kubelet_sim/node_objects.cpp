#include "adapters/kube/kubelet_sim/node_objects.hpp"

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "adapters/kube/model/gpu_product.hpp"
#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/model/quantity.hpp"
#include "adapters/kube/request_bodies.hpp"

namespace gantry::kube {

std::string nic_label_value(double bytes_per_s) {
  const auto bits = static_cast<int64_t>(std::llround(bytes_per_s * 8));
  constexpr std::pair<int64_t, const char*> kUnits[] = {
      {1'000'000'000'000, "Tbps"}, {1'000'000'000, "Gbps"}, {1'000'000, "Mbps"}, {1'000, "kbps"}};
  for (const auto& [scale, unit] : kUnits)
    if (bits >= scale && bits % scale == 0) return std::to_string(bits / scale) + unit;
  return std::to_string(bits) + "bps";
}

nlohmann::json node_object(const Topology& topology, NodeId n, Time now) {
  const NodeInfo& info = topology.nodes[static_cast<size_t>(n)];
  const NodeClass& c = topology.classes[static_cast<size_t>(info.node_class)];
  nlohmann::json labels = nlohmann::json::object();
  for (const auto& [k, v] : info.labels) labels[k] = v;
  labels["kubernetes.io/hostname"] = info.name;
  labels[std::string(kNodeClassLabel)] = c.name;
  if (!topology.racks.empty())
    labels[std::string(kRackLabel)] = topology.racks[static_cast<size_t>(info.rack)];
  if (c.nic_bytes_per_s > 0) labels[std::string(kNicLabel)] = nic_label_value(c.nic_bytes_per_s);
  nlohmann::json resources = {{"cpu", format_cpu_quantity(c.capacity.cpu_milli)},
                              {"memory", std::to_string(c.capacity.memory_bytes)},
                              {"pods", "110"}};
  if (c.capacity.gpus > 0 && c.gpu_type >= 0) {
    const GpuType& g = topology.gpus.at(c.gpu_type);
    labels[std::string(kGpuProductLabel)] = gpu_product_label(g.name);
    labels["nvidia.com/gpu.count"] = std::to_string(c.capacity.gpus);
    if (g.memory_bytes > 0) labels["nvidia.com/gpu.memory"] = std::to_string(g.memory_bytes >> 20);
    labels[std::string(kIslandLabel)] =
        std::to_string(c.island_size > 0 ? c.island_size : c.capacity.gpus);
    resources[std::string(kGpuResource)] = std::to_string(c.capacity.gpus);
  }
  nlohmann::json taints = nlohmann::json::array();
  for (const Taint& t : info.taints) {
    nlohmann::json j = {{"key", t.key}, {"effect", to_string(t.effect)}};
    if (!t.value.empty()) j["value"] = t.value;
    taints.push_back(j);
  }
  nlohmann::json node = {{"apiVersion", "v1"},
                         {"kind", "Node"},
                         {"metadata", {{"name", info.name}, {"labels", labels}}},
                         {"spec", nlohmann::json::object()},
                         {"status",
                          {{"capacity", resources},
                           {"allocatable", resources},
                           {"conditions",
                            {{{"type", "Ready"},
                              {"status", "True"},
                              {"reason", "KubeletReady"},
                              {"message", "gantry kubelet-sim is posting ready status"},
                              {"lastHeartbeatTime", format_rfc3339(now)},
                              {"lastTransitionTime", format_rfc3339(now)}}}},
                           // Every field core/v1 NodeSystemInfo requires (the OpenAPI
                           // schema: tests/adapters/kube/openapi_bodies_test.cpp).
                           {"nodeInfo",
                            {{"machineID", info.name},
                             {"systemUUID", info.name},
                             {"bootID", ""},
                             {"kernelVersion", ""},
                             {"osImage", "gantry kubelet-sim"},
                             {"containerRuntimeVersion", ""},
                             {"kubeletVersion", "gantry-kubelet-sim"},
                             {"kubeProxyVersion", ""},
                             {"operatingSystem", "linux"},
                             {"architecture", "amd64"}}}}}};
  if (!taints.empty()) node["spec"]["taints"] = taints;
  return node;
}

nlohmann::json lifecycle_taints(const nlohmann::json& taints, bool down, Time at) {
  constexpr const char* kNotReady = "node.kubernetes.io/not-ready";
  constexpr const char* kUnreachable = "node.kubernetes.io/unreachable";
  std::vector<nlohmann::json> wanted;
  if (down) {
    wanted.push_back({{"key", kUnreachable}, {"effect", "NoSchedule"}});
    wanted.push_back(
        {{"key", kUnreachable}, {"effect", "NoExecute"}, {"timeAdded", format_rfc3339(at)}});
  }
  nlohmann::json out = nlohmann::json::array();
  for (const nlohmann::json& t : taints.is_array() ? taints : nlohmann::json::array()) {
    const std::string key = t.is_object() ? t.value("key", "") : "";
    if (key != kNotReady && key != kUnreachable) {
      out.push_back(t);  // passed through, not read
      continue;
    }
    const auto w = std::find_if(wanted.begin(), wanted.end(), [&](const nlohmann::json& x) {
      return x["key"] == key && x["effect"] == t.value("effect", "");
    });
    if (w == wanted.end()) continue;
    out.push_back(t);
    wanted.erase(w);
  }
  for (nlohmann::json& w : wanted) out.push_back(std::move(w));
  return out;
}

nlohmann::json node_lease(const std::string& node, Time now, const std::string& resource_version) {
  LeaseSpec l;
  l.namespace_name = "kube-node-lease";
  l.name = node;
  l.holder_identity = node;
  l.lease_duration_seconds = 40;  // the kubelet's nodeLeaseDurationSeconds
  l.renew_time = now;
  l.resource_version = resource_version;
  return lease_body(l);
}

}  // namespace gantry::kube
