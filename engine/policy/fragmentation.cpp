#include "engine/policy/fragmentation.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace gantry {

namespace {
constexpr int kMaxWhole = 64;  // a node holds at most 64 GPUs (Cluster)
}  // namespace

FragmentationModel::FragmentationModel(std::span<const WeightedPodClass> workload) {
  set_workload(workload);
}

void FragmentationModel::set_workload(std::span<const WeightedPodClass> workload) {
  workload_.clear();
  for (const WeightedPodClass& w : workload)
    if (w.weight > 0) workload_.push_back(w);
  double sum = 0;
  for (const WeightedPodClass& w : workload_) sum += w.weight;
  weight_total_ = 0;
  for (const WeightedPodClass& w : workload_)
    weight_total_ += std::llround(w.weight / sum * static_cast<double>(kWeightScale));
  bound_ = 0;  // rebind (and rebuild the per-type classes) on next use
}

void FragmentationModel::bind(const Cluster& cluster) {
  if (bound_ == cluster.instance_id()) return;
  bound_ = cluster.instance_id();
  const GpuCatalog& catalog = cluster.topology().gpus;
  assert(catalog.size() <= 64 && "at most 64 GPU types");
  per_type_.clear();
  per_type_.resize(catalog.size());
  double sum = 0;
  for (const WeightedPodClass& w : workload_) sum += w.weight;
  for (const WeightedPodClass& w : workload_) {
    const PodClass& p = w.pod;
    if (!p.needs_gpu()) continue;  // contributes p · T on every node: only in weight_total_
    Class c;
    c.cpu_milli = p.cpu_milli;
    c.gpus = p.gpus;
    c.gpu_milli = p.gpu_milli;
    c.weight = std::llround(w.weight / sum * static_cast<double>(kWeightScale));
    if (c.gpus > kMaxWhole || c.gpu_milli >= kMilliPerGpu) continue;  // fits on no node
    uint64_t types = 0;
    if (p.gpu_models.empty()) {
      types = catalog.size() >= 64 ? ~uint64_t{0} : (uint64_t{1} << catalog.size()) - 1;
    } else {
      for (const std::string& name : p.gpu_models)
        if (const GpuTypeId t = catalog.find(name); t >= 0) types |= uint64_t{1} << t;
    }
    for (size_t t = 0; t < per_type_.size(); ++t)
      if ((types >> t) & 1) per_type_[t].classes.push_back(c);
  }
  for (PerType& pt : per_type_) {
    std::stable_sort(pt.classes.begin(), pt.classes.end(),
                     [](const Class& a, const Class& b) { return a.cpu_milli < b.cpu_milli; });
    for (const Class& c : pt.classes) pt.cpus.push_back(c.cpu_milli);
    pt.tables.resize(pt.classes.size() + 1);
  }
  nodes_.assign(static_cast<size_t>(cluster.node_count()), NodeCache{});
  total_ = 0;
  total_change_count_ = ~uint64_t{0};
}

const FragmentationModel::Table& FragmentationModel::table(GpuTypeId t, int64_t cpu_free) {
  PerType& pt = per_type_[static_cast<size_t>(t)];
  const auto level = static_cast<size_t>(
      std::upper_bound(pt.cpus.begin(), pt.cpus.end(), cpu_free) - pt.cpus.begin());
  std::unique_ptr<Table>& slot = pt.tables[level];
  if (!slot) {
    slot = std::make_unique<Table>();
    slot->share.assign(static_cast<size_t>(kMilliPerGpu) + 1, 0);
    slot->whole.assign(kMaxWhole + 1, 0);
    for (size_t i = 0; i < level; ++i) {
      const Class& c = pt.classes[i];
      if (c.gpu_milli > 0) {
        slot->share[static_cast<size_t>(c.gpu_milli)] += c.weight;
      } else {
        slot->whole[static_cast<size_t>(c.gpus)] += c.weight;
      }
    }
    for (size_t x = 1; x < slot->share.size(); ++x) slot->share[x] += slot->share[x - 1];
    for (size_t j = 1; j < slot->whole.size(); ++j) slot->whole[j] += slot->whole[j - 1];
  }
  return *slot;
}

int64_t FragmentationModel::compute(const Cluster& cluster, NodeId n) {
  const GpuTypeId t = cluster.gpu_type_of(n);
  const int64_t idle = cluster.node_free_milli(n);
  if (t < 0 || idle == 0 || weight_total_ == 0) return 0;
  const Table& tb = table(t, cluster.free(n).cpu_milli);
  int64_t usable = 0;
  for (const uint16_t a : cluster.gpu_free_milli(n)) usable += int64_t{a} * tb.share[a];
  const int f = cluster.free(n).gpus;
  usable += int64_t{kMilliPerGpu} * f * tb.whole[static_cast<size_t>(f)];
  return weight_total_ * idle - usable;
}

int64_t FragmentationModel::node_fragmentation_scaled(const Cluster& cluster, NodeId n) {
  bind(cluster);
  if (static_cast<size_t>(n) >= nodes_.size())
    nodes_.resize(static_cast<size_t>(cluster.node_count()));
  NodeCache& c = nodes_[static_cast<size_t>(n)];
  const uint64_t v = cluster.version(n);
  if (c.version != v) {
    const int64_t frag = compute(cluster, n);
    total_ += frag - c.frag;
    c.frag = frag;
    c.version = v;
  }
  return c.frag;
}

int64_t FragmentationModel::cluster_fragmentation_scaled(const Cluster& cluster) {
  bind(cluster);
  if (total_change_count_ != cluster.change_count()) {
    for (NodeId n = 0; n < cluster.node_count(); ++n) node_fragmentation_scaled(cluster, n);
    total_change_count_ = cluster.change_count();
  }
  return total_;
}

double FragmentationModel::node_fragmentation(const Cluster& cluster, NodeId n) {
  const int64_t scaled = node_fragmentation_scaled(cluster, n);
  return weight_total_ == 0 ? 0.0
                            : static_cast<double>(scaled) / static_cast<double>(weight_total_);
}

double FragmentationModel::cluster_fragmentation(const Cluster& cluster) {
  const int64_t scaled = cluster_fragmentation_scaled(cluster);
  return weight_total_ == 0 ? 0.0
                            : static_cast<double>(scaled) / static_cast<double>(weight_total_);
}

FragmentationModel::Move FragmentationModel::best_move(const Cluster& cluster, NodeId n,
                                                       const Resources& pod,
                                                       const FgdScore* score) {
  Move move;
  const GpuTypeId t = cluster.gpu_type_of(n);
  if (t < 0 || cluster.gpu_count(n) == 0) {
    assert(!pod.needs_gpu());
    return move;  // nothing to fragment on a node without GPUs
  }
  const int64_t before = node_fragmentation_scaled(cluster, n);
  if (weight_total_ == 0) {
    move.gpu_mask = pod.shares_gpu() ? uint64_t{1} << cluster.best_fit_share_gpu(n, pod.gpu_milli)
                                     : cluster.lowest_free_gpus(n, pod.gpus);
    return move;
  }
  const Resources& free = cluster.free(n);
  const Table& tb = table(t, free.cpu_milli - pod.cpu_milli);
  const std::span<const uint16_t> a = cluster.gpu_free_milli(n);
  const int64_t idle = cluster.node_free_milli(n);
  const int f = free.gpus;
  int64_t usable = 0;  // Σ a_g W'(a_g) with the CPU left after the pod
  for (const uint16_t x : a) usable += int64_t{x} * tb.share[x];
  const auto whole_term = [&](int free_gpus) {
    return int64_t{kMilliPerGpu} * free_gpus * tb.whole[static_cast<size_t>(free_gpus)];
  };

  if (!pod.needs_gpu()) {
    move.delta = weight_total_ * idle - usable - whole_term(f) - before;
    return move;
  }
  if (!pod.shares_gpu()) {
    const int k = pod.gpus;
    assert(f >= k);
    move.gpu_mask = cluster.lowest_free_gpus(n, k);
    const int64_t after_usable = usable - int64_t{k} * kMilliPerGpu * tb.share[kMilliPerGpu];
    const int64_t after =
        weight_total_ * (idle - int64_t{k} * kMilliPerGpu) - after_usable - whole_term(f - k);
    move.delta = after - before;
    return move;
  }
  const int m = pod.gpu_milli;
  bool found = false;
  int best_score = 0;
  for (size_t g = 0; g < a.size(); ++g) {
    const int x = a[g];
    if (x < m) continue;
    const int rest = x - m;
    const int64_t after_usable = usable - int64_t{x} * tb.share[static_cast<size_t>(x)] +
                                 int64_t{rest} * tb.share[static_cast<size_t>(rest)];
    const int after_free = f - (x == kMilliPerGpu ? 1 : 0);
    const int64_t after = weight_total_ * (idle - m) - after_usable - whole_term(after_free);
    const int64_t delta = after - before;
    // Without a score the smallest ΔF wins; with one the highest score (ties to the lower GPU).
    const int s = score != nullptr ? score->score(delta) : 0;
    const bool better = score != nullptr ? s > best_score : delta < move.delta;
    if (!found || better) {
      found = true;
      best_score = s;
      move.delta = delta;
      move.gpu_mask = uint64_t{1} << g;
    }
  }
  assert(found && "the share pod does not fit on the node");
  return move;
}

}  // namespace gantry
