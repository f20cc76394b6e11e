#include "engine/policy/node_index.hpp"

#include <algorithm>

namespace gantry {

void NodeIndex::set_bit(GpuTypeId t, int k, NodeId n, bool on) {
  uint64_t& word =
      types_[static_cast<size_t>(t)][static_cast<size_t>(k)][static_cast<size_t>(n) / 64];
  const uint64_t bit = 1ull << (static_cast<unsigned>(n) % 64);
  if (on) {
    word |= bit;
  } else {
    word &= ~bit;
  }
}

int& NodeIndex::rack_count_of(GpuTypeId t, RackId r, int k) {
  const size_t width = types_[static_cast<size_t>(t)].size();
  return rack_counts_[static_cast<size_t>(t)]
                     [static_cast<size_t>(r) * width + static_cast<size_t>(k)];
}

void NodeIndex::layout(const Cluster& cluster) {
  const auto nodes = static_cast<size_t>(cluster.node_count());
  instance_ = cluster.instance_id();
  const size_t words = (nodes + 63) / 64;
  types_.assign(cluster.topology().gpus.size(), {});
  for (size_t t = 0; t < types_.size(); ++t) {
    const int per_node = cluster.max_gpus_per_node(static_cast<GpuTypeId>(t));
    types_[t].assign(static_cast<size_t>(per_node) + 1, std::vector<uint64_t>(words, 0));
  }
  racks_ = static_cast<RackId>(cluster.topology().racks.size());
  for (size_t i = 0; i < nodes; ++i)
    racks_ = std::max(racks_, cluster.rack_of(static_cast<NodeId>(i)) + 1);
  rack_counts_.assign(types_.size(), {});
  for (size_t t = 0; t < types_.size(); ++t)
    rack_counts_[t].assign(static_cast<size_t>(racks_) * types_[t].size(), 0);
  // Rack lists by counting sort: ascending ids inside each rack.
  rack_begin_.assign(static_cast<size_t>(racks_) + 1, 0);
  for (size_t i = 0; i < nodes; ++i)
    ++rack_begin_[static_cast<size_t>(cluster.rack_of(static_cast<NodeId>(i))) + 1];
  for (size_t r = 0; r < static_cast<size_t>(racks_); ++r) rack_begin_[r + 1] += rack_begin_[r];
  rack_members_.assign(nodes, -1);
  std::vector<size_t> next(rack_begin_.begin(), rack_begin_.end() - 1);
  for (size_t i = 0; i < nodes; ++i)
    rack_members_[next[static_cast<size_t>(cluster.rack_of(static_cast<NodeId>(i)))]++] =
        static_cast<NodeId>(i);
  cpu_only_.assign(words, 0);
  cpu_.assign(kCpuLevels, std::vector<uint64_t>(words, 0));
  share_.assign(types_.size(),
                std::vector<std::vector<uint64_t>>(kShareLevels, std::vector<uint64_t>(words, 0)));
  cached_free_.assign(nodes, -2);  // -2: not indexed yet
  cached_cpu_.assign(nodes, -1);
  cached_share_.assign(nodes, -1);
}

void NodeIndex::move_level(std::vector<std::vector<uint64_t>>& at_least, int from, int to,
                           NodeId n) {
  const size_t word = static_cast<size_t>(n) / 64;
  const uint64_t bit = 1ull << (static_cast<unsigned>(n) % 64);
  for (int l = from + 1; l <= to; ++l) at_least[static_cast<size_t>(l)][word] |= bit;
  for (int l = to + 1; l <= from; ++l) at_least[static_cast<size_t>(l)][word] &= ~bit;
}

bool NodeIndex::stale(const Cluster& cluster, NodeId n) const {
  const auto i = static_cast<size_t>(n);
  const Resources& free = cluster.free(n);
  if (cached_cpu_[i] != cpu_level(free.cpu_milli)) return true;
  if (cached_free_[i] == -1) return false;  // a CPU-only node: only its CPU is indexed
  return cached_free_[i] != free.gpus || cached_share_[i] != share_level(share_room(free));
}

void NodeIndex::sync(const Cluster& cluster) {
  const auto nodes = static_cast<size_t>(cluster.node_count());
  const uint64_t now = cluster.change_count();
  // Whether the change log still names every change since the last sync.
  const bool logged = now - synced_at_ < Cluster::kChangeLogSize;
  if (instance_ != cluster.instance_id() || cached_free_.size() != nodes) {
    // First use, a different cluster, or nodes added: lay out empty buckets and fill them all.
    layout(cluster);
  } else if (logged) {
    for (uint64_t c = synced_at_ + 1; c <= now; ++c) {
      const NodeId n = cluster.changed_node(c);
      if (stale(cluster, n)) note(cluster, n);
    }
    synced_at_ = now;
    return;
  }
  for (size_t i = 0; i < nodes; ++i) {
    const auto n = static_cast<NodeId>(i);
    if (stale(cluster, n)) note(cluster, n);  // a node laid out afresh is stale (no CPU level)
  }
  synced_at_ = now;
}

void NodeIndex::note(const Cluster& cluster, NodeId n) {
  const auto i = static_cast<size_t>(n);
  const Resources& free = cluster.free(n);
  const int cpu = cpu_level(free.cpu_milli);
  move_level(cpu_, cached_cpu_[i], cpu, n);
  cached_cpu_[i] = static_cast<int8_t>(cpu);
  const GpuTypeId t = cluster.gpu_type_of(n);
  if (t < 0 || cluster.node_class(n).capacity.gpus == 0) {
    cached_free_[i] = -1;
    cpu_only_[i / 64] |= 1ull << (i % 64);
    return;
  }
  const int share = share_level(share_room(free));
  move_level(share_[static_cast<size_t>(t)], cached_share_[i], share, n);
  cached_share_[i] = static_cast<int8_t>(share);
  const int now = free.gpus;
  const RackId r = cluster.rack_of(n);
  if (cached_free_[i] >= 0) {
    set_bit(t, cached_free_[i], n, false);
    --rack_count_of(t, r, cached_free_[i]);
  }
  set_bit(t, now, n, true);
  ++rack_count_of(t, r, now);
  cached_free_[i] = now;
}

}  // namespace gantry
