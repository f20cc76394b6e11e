#include "adapters/kube/world/live_cluster.hpp"

#include <bit>

#include "adapters/kube/model/gpu_product.hpp"

namespace gantry::kube {

namespace {

constexpr const char* kUnracked = "unracked";

bool same_capacity(const Resources& a, const Resources& b) {
  return a.cpu_milli == b.cpu_milli && a.memory_bytes == b.memory_bytes && a.gpus == b.gpus;
}

std::string derived_class_name(const KubeNode& node, const std::string& gpu_model) {
  const std::string rest = std::to_string(node.allocatable.cpu_milli) + "m-" +
                           std::to_string(node.allocatable.memory_bytes >> 20) + "Mi";
  if (node.allocatable.gpus == 0) return "cpu-only-" + rest;
  return gpu_model + "x" + std::to_string(node.allocatable.gpus) + "-" + rest;
}

}  // namespace

LiveCluster::LiveCluster(Topology model) : cluster_(std::move(model)) {
  state_.resize(static_cast<size_t>(cluster_.node_count()));
  for (NodeId n = 0; n < cluster_.node_count(); ++n) {
    by_name_.emplace(cluster_.node_info(n).name, n);
    apply_state(n);  // absent until its Node appears
  }
}

std::optional<NodeId> LiveCluster::node_id(const std::string& name) const {
  const auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

bool LiveCluster::present(NodeId n) const {
  return n >= 0 && static_cast<size_t>(n) < state_.size() && state_[static_cast<size_t>(n)].present;
}

LiveCluster::NodeBar LiveCluster::bar(NodeId n) const {
  const NodeState& s = state_[static_cast<size_t>(n)];
  if (!s.present) return NodeBar::kAbsent;
  if (!s.ready) return NodeBar::kNotReady;
  if (!s.fits_class) return NodeBar::kAllocatableUnlike;
  if (s.unschedulable) return NodeBar::kCordoned;
  return NodeBar::kNone;
}

uint64_t LiveCluster::unhealthy_gpus(NodeId n) const {
  return state_[static_cast<size_t>(n)].unhealthy;
}

void LiveCluster::apply_state(NodeId n) {
  const NodeState& s = state_[static_cast<size_t>(n)];
  cluster_.set_ready(n, s.present && s.ready && s.fits_class);
  cluster_.set_cordoned(n, s.unschedulable);
}

GpuTypeId LiveCluster::gpu_type_for(const KubeNode& node) {
  if (node.allocatable.gpus == 0) return -1;
  const GpuCatalog& catalog = cluster_.topology().gpus;
  const std::string product = node.gpu_product.empty() ? "unknown-gpu" : node.gpu_product;
  const std::string model = gpu_model_of_product(product, catalog);
  if (!model.empty()) return catalog.find(model);
  GpuType unknown;
  unknown.name = product;
  unknown.relative_compute = 1.0;
  unknown.pcie_bytes_per_s = 32e9;  // PCIe Gen4 x16 per direction, assumed
  unknown.source = "live node label nvidia.com/gpu.product=" + product +
                   ": a model the catalog does not know; compute and links assumed";
  return cluster_.add_gpu_type(std::move(unknown));
}

Result<int32_t> LiveCluster::class_for(const KubeNode& node, GpuTypeId gpu_type) {
  const auto& classes = cluster_.topology().classes;
  const int island = node.island_size;
  const auto matches = [&](const NodeClass& c) {
    return c.gpu_type == (node.allocatable.gpus > 0 ? gpu_type : c.gpu_type) &&
           same_capacity(c.capacity, node.allocatable) &&
           (node.allocatable.gpus == 0 || c.island_size == island);
  };
  for (size_t i = 0; i < classes.size(); ++i)
    if (!node.node_class.empty() && classes[i].name == node.node_class && matches(classes[i]))
      return static_cast<int32_t>(i);
  for (size_t i = 0; i < classes.size(); ++i)
    if (matches(classes[i])) return static_cast<int32_t>(i);
  NodeClass c;
  const std::string model =
      gpu_type >= 0 ? cluster_.topology().gpus.at(gpu_type).name : std::string();
  c.name = node.node_class.empty() ? derived_class_name(node, model) : node.node_class;
  for (const NodeClass& existing : classes)
    if (existing.name == c.name) c.name += "@" + std::to_string(classes.size());
  c.capacity = node.allocatable;
  c.gpu_type = gpu_type;
  if (gpu_type >= 0) {
    const GpuType& t = cluster_.topology().gpus.at(gpu_type);
    c.island_size = island;
    c.pcie_bytes_per_s = t.pcie_bytes_per_s;
    if (t.nvlink_bytes_per_s > 0 && island > 1) {
      c.island_link = island == node.allocatable.gpus ? IslandLink::kNVSwitch : IslandLink::kNVLink;
      c.island_bytes_per_s = t.nvlink_bytes_per_s;
    } else {
      c.island_link = IslandLink::kPCIe;
      c.island_bytes_per_s = t.pcie_bytes_per_s;
    }
  }
  return cluster_.add_node_class(std::move(c));
}

Result<NodeId> LiveCluster::upsert_node(const KubeNode& reported) {
  // The node as its class knows it: every GPU, in service or not.
  KubeNode node = reported;
  node.allocatable.gpus += std::popcount(reported.unhealthy_gpus);
  if (node.allocatable.gpus > 64) return Status::error("node " + node.name + ": more than 64 GPUs");
  NodeId n;
  if (const auto known = node_id(node.name)) {
    n = *known;
  } else {
    const GpuTypeId gpu_type = gpu_type_for(node);
    const Result<int32_t> cls = class_for(node, gpu_type);
    if (!cls) return Status::error("node " + node.name + ": " + cls.error());
    NodeInfo info;
    info.name = node.name;
    info.node_class = cls.value();
    info.rack = cluster_.add_rack(node.rack.empty() ? kUnracked : node.rack);
    const Result<NodeId> added = cluster_.add_node(std::move(info));
    if (!added) return Status::error(added.error());
    n = added.value();
    by_name_.emplace(node.name, n);
    state_.resize(static_cast<size_t>(cluster_.node_count()));
  }
  NodeState& s = state_[static_cast<size_t>(n)];
  s.present = true;
  s.ready = node.ready;
  s.unschedulable = node.unschedulable;
  s.fits_class = same_capacity(cluster_.node_class(n).capacity, node.allocatable);
  s.unhealthy = s.fits_class ? node.unhealthy_gpus : 0;
  cluster_.set_labels(n, node.labels);
  cluster_.set_taints(n, node.taints);
  apply_state(n);
  hold_gpus(n);
  return n;
}

void LiveCluster::hold_gpus(NodeId n) {
  const AllocationOwner owner{kUnhealthyGpuHold, n};
  const Allocation* held = cluster_.allocation_of(owner);
  const uint64_t want = state_[static_cast<size_t>(n)].unhealthy;
  const uint64_t have = held == nullptr ? 0 : held->gpu_mask;
  // Held: the GPUs out of service that were held or are free now.
  const uint64_t mask = want & (have | cluster_.free_gpu_mask(n));
  if (mask == have) return;
  if (held != nullptr) (void)cluster_.release(owner);
  if (mask == 0) return;
  const Resources r{0, 0, std::popcount(mask), 0};
  (void)cluster_.allocate(n, r, mask, owner);  // free or held a moment ago
}

void LiveCluster::refresh_gpu_holds() {
  for (NodeId n = 0; n < static_cast<NodeId>(state_.size()); ++n) {
    if (state_[static_cast<size_t>(n)].unhealthy == 0 &&
        cluster_.allocation_of(AllocationOwner{kUnhealthyGpuHold, n}) == nullptr)
      continue;
    hold_gpus(n);
  }
}

void LiveCluster::delete_node(const std::string& name) {
  const auto n = node_id(name);
  if (!n) return;
  state_[static_cast<size_t>(*n)].present = false;
  apply_state(*n);
}

Status LiveCluster::occupy(const KubePod& pod) {
  if (foreign_.count(pod.key()) != 0) return Status::ok();
  const auto n = node_id(pod.node_name);
  if (!n) return Status::error("pod " + pod.key() + " is on node " + pod.node_name + ", unknown");
  const Resources& r = pod.request;
  uint64_t mask = 0;
  if (!pod.gpu_index.empty()) {
    for (int g : pod.gpu_index) mask |= uint64_t{1} << g;
  } else if (r.gpus > 0) {
    mask = cluster_.lowest_free_gpus(*n, r.gpus);
  } else if (r.gpu_milli > 0) {
    const int g = cluster_.best_fit_share_gpu(*n, r.gpu_milli);
    if (g >= 0) mask = uint64_t{1} << g;
  }
  const AllocationOwner owner{kForeignWorkload, next_foreign_};
  const Status s = cluster_.allocate(*n, r, mask, owner);
  if (!s) return Status::error("pod " + pod.key() + " on " + pod.node_name + ": " + s.message());
  foreign_.emplace(pod.key(), next_foreign_++);
  return Status::ok();
}

void LiveCluster::vacate(const std::string& pod_key) {
  const auto it = foreign_.find(pod_key);
  if (it == foreign_.end()) return;
  (void)cluster_.release(AllocationOwner{kForeignWorkload, it->second});
  foreign_.erase(it);
}

}  // namespace gantry::kube
