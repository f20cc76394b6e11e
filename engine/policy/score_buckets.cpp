#include "engine/policy/score_buckets.hpp"

#include <algorithm>

namespace gantry {

namespace {

size_t mix(size_t h, uint64_t v) {
  return h ^ (static_cast<size_t>(v * 0x9E3779B97F4A7C15ull) + 0x7F4A7C159E3779B9ull + (h << 6) +
              (h >> 2));
}

}  // namespace

size_t ScoreBuckets::KeyHash::operator()(const Key& k) const {
  size_t h = mix(0, static_cast<uint64_t>(k.pod.cpu_milli));
  h = mix(h, static_cast<uint64_t>(k.pod.memory_bytes));
  h = mix(h, static_cast<uint64_t>(static_cast<uint32_t>(k.pod.gpus)) << 32 |
                 static_cast<uint32_t>(k.pod.gpu_milli));
  return mix(mix(h, k.types[0]), k.types[1]);
}

bool ScoreBuckets::applies(const PlacementContext& ctx) {
  if (!ctx.gang.admits_by_node_alone()) return false;
  return std::all_of(ctx.gang.gpu_types().begin(), ctx.gang.gpu_types().end(),
                     [](GpuTypeId t) { return t >= 0 && t < 128; });
}

void ScoreBuckets::clear() {
  classes_.clear();
  bytes_ = 0;
}

ScoreBuckets::Class& ScoreBuckets::class_of(const PlacementContext& ctx) {
  if (cluster_ != ctx.cluster.instance_id()) {
    clear();
    cluster_ = ctx.cluster.instance_id();
  }
  Key key{ctx.pod, {}};
  // A GPU-less pod may use any node: the gang's GPU types do not filter it.
  if (ctx.pod.needs_gpu())
    for (GpuTypeId t : ctx.gang.gpu_types())
      key.types[static_cast<size_t>(t) / 64] |= uint64_t{1} << (static_cast<unsigned>(t) % 64);
  if (const auto it = classes_.find(key); it != classes_.end()) return it->second;
  const auto nodes = static_cast<size_t>(ctx.cluster.node_count());
  const size_t class_bytes =
      nodes * (sizeof(uint64_t) + sizeof(int8_t)) + kBuckets * ((nodes + 63) / 64) * 8;
  if (bytes_ + class_bytes > kMaxBytes) clear();
  bytes_ += class_bytes;
  return classes_[key];
}

void ScoreBuckets::reset(Class& c, const Cluster& cluster) {
  c.nodes = cluster.node_count();
  const auto nodes = static_cast<size_t>(c.nodes);
  c.words = (nodes + 63) / 64;
  c.version.resize(nodes);
  for (NodeId n = 0; n < c.nodes; ++n) c.version[static_cast<size_t>(n)] = cluster.version(n);
  c.bucket.assign(nodes, -1);
  c.bits.assign(kBuckets * c.words, 0);
  c.count.fill(0);
  c.nonempty.fill(0);
  c.feasible = 0;
}

void ScoreBuckets::remove(Class& c, NodeId n) {
  const int b = c.bucket[static_cast<size_t>(n)];
  if (b < 0) return;
  const auto i = static_cast<size_t>(n);
  c.bits[static_cast<size_t>(b) * c.words + i / 64] &= ~(uint64_t{1} << (i % 64));
  if (--c.count[static_cast<size_t>(b)] == 0)
    c.nonempty[static_cast<size_t>(b) / 64] &= ~(uint64_t{1} << (b % 64));
  c.bucket[i] = -1;
  --c.feasible;
}

bool ScoreBuckets::put(Class& c, NodeId n, const NodeScore& s) {
  const int64_t b = s.keys[0];
  if (b < 0 || b >= kBuckets ||
      std::any_of(s.keys.begin() + 1, s.keys.end(), [](int64_t k) { return k != 0; })) {
    c.bucketable = false;
    return false;
  }
  const auto i = static_cast<size_t>(n);
  c.bucket[i] = static_cast<int8_t>(b);
  c.bits[static_cast<size_t>(b) * c.words + i / 64] |= uint64_t{1} << (i % 64);
  if (c.count[static_cast<size_t>(b)]++ == 0)
    c.nonempty[static_cast<size_t>(b) / 64] |= uint64_t{1} << (b % 64);
  ++c.feasible;
  return true;
}

std::optional<NodeId> ScoreBuckets::best(const Class& c) {
  for (size_t w = c.nonempty.size(); w-- > 0;) {
    if (c.nonempty[w] == 0) continue;
    const size_t b = w * 64 + 63 - static_cast<size_t>(std::countl_zero(c.nonempty[w]));
    const uint64_t* row = c.bits.data() + b * c.words;
    for (size_t i = 0; i < c.words; ++i)
      if (row[i] != 0) return static_cast<NodeId>(i * 64 + std::countr_zero(row[i]));
  }
  return std::nullopt;
}

NodeId ScoreBuckets::nth(const Class& c, int64_t k) {
  for (size_t b = 0; b < kBuckets; ++b) {
    if (c.count[b] == 0) continue;
    const uint64_t* row = c.bits.data() + b * c.words;
    for (size_t i = 0; i < c.words; ++i) {
      uint64_t bits = row[i];
      const int count = std::popcount(bits);
      if (k >= count) {
        k -= count;
        continue;
      }
      for (; k > 0; --k) bits &= bits - 1;  // drop the k lowest set bits
      return static_cast<NodeId>(i * 64 + static_cast<size_t>(std::countr_zero(bits)));
    }
  }
  return -1;  // not reached for k < c.feasible
}

}  // namespace gantry
