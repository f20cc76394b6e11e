#include "engine/policy/autoscale/cluster_autoscaler.hpp"

#include <algorithm>
#include <cassert>
#include <map>
#include <numeric>
#include <tuple>
#include <utility>

namespace gantry {

const char* to_string(Expander e) {
  switch (e) {
    case Expander::kLeastWaste:
      return "least-waste";
    case Expander::kPrice:
      return "price";
  }
  return "?";
}

namespace {

// The free room of one node in the simulation: CPU, memory, fully free GPUs and the free milli
// of each partly used GPU.
struct SimNode {
  int64_t cpu = 0;
  int64_t memory = 0;
  int32_t gpus = 0;
  std::vector<int32_t> partial;  // 1..999 each
  NodeId node = -1;              // the Cluster's node, -1 for one being provisioned or new

  static SimNode empty_of(const NodeClass& c) {
    SimNode s;
    s.cpu = c.capacity.cpu_milli;
    s.memory = c.capacity.memory_bytes;
    s.gpus = c.capacity.gpus;
    return s;
  }
  bool has_gpu_room() const { return gpus > 0 || !partial.empty(); }
  // The partly used GPU with the least free milli still >= m, or -1.
  int best_share(int32_t m) const {
    int best = -1;
    for (size_t i = 0; i < partial.size(); ++i)
      if (partial[i] >= m && (best < 0 || partial[i] < partial[static_cast<size_t>(best)]))
        best = static_cast<int>(i);
    return best;
  }
  bool fits(const Resources& r) const {
    if (r.cpu_milli > cpu || r.memory_bytes > memory || r.gpus > gpus) return false;
    return !r.shares_gpu() || gpus > 0 || best_share(r.gpu_milli) >= 0;
  }
  void take(const Resources& r) {
    cpu -= r.cpu_milli;
    memory -= r.memory_bytes;
    gpus -= r.gpus;
    if (!r.shares_gpu()) return;
    const int i = best_share(r.gpu_milli);
    if (i >= 0) {
      int32_t& left = partial[static_cast<size_t>(i)];
      left -= r.gpu_milli;
      if (left == 0) partial.erase(partial.begin() + i);
    } else {
      --gpus;
      partial.push_back(kMilliPerGpu - r.gpu_milli);
    }
  }
  int64_t idle_gpu_milli() const {
    return int64_t{gpus} * kMilliPerGpu + std::accumulate(partial.begin(), partial.end(), 0LL);
  }
};

// Existing nodes sharing a class, labels and taints: the gang's constraints are checked once per
// group.
struct Group {
  int32_t node_class = 0;
  const Labels* labels = nullptr;
  const std::vector<Taint>* taints = nullptr;
  std::vector<int> gpu_nodes;  // indices into the simulation's nodes with a free GPU or share
  std::vector<int> all_nodes;  // with any free room
};

struct GroupKeyLess {
  using Key = std::tuple<int32_t, const Labels*, const std::vector<Taint>*>;
  static auto taint_tuple(const Taint& t) { return std::tie(t.key, t.value, t.effect); }
  bool operator()(const Key& a, const Key& b) const {
    if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) < std::get<0>(b);
    const Labels& la = *std::get<1>(a);
    const Labels& lb = *std::get<1>(b);
    if (la != lb) return la < lb;
    const std::vector<Taint>& ta = *std::get<2>(a);
    const std::vector<Taint>& tb = *std::get<2>(b);
    return std::lexicographical_compare(
        ta.begin(), ta.end(), tb.begin(), tb.end(),
        [](const Taint& x, const Taint& y) { return taint_tuple(x) < taint_tuple(y); });
  }
};

std::string describe(const Resources& r) {
  std::string s = "cpu " + std::to_string(r.cpu_milli) + "m, memory " +
                  std::to_string(r.memory_bytes) + " bytes";
  if (r.gpus > 0) s += ", " + std::to_string(r.gpus) + " GPUs";
  if (r.shares_gpu()) s += ", " + std::to_string(r.gpu_milli) + " milli-GPU";
  return s;
}

std::string describe(const Taint& t) {
  return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + to_string(t.effect);
}

// The GPU models a job allows, as catalog ids.
struct ModelFilter {
  bool restricted = false;
  std::vector<GpuTypeId> allowed;
  std::string names;  // as written, for messages

  static ModelFilter of(const JobSpec& job, const GpuCatalog& catalog) {
    ModelFilter f;
    for (const std::string& name : job.allowed_gpu_models()) {
      f.restricted = true;
      f.names += (f.names.empty() ? "" : ", ") + name;
      const GpuTypeId t = catalog.find(name);
      if (t >= 0) f.allowed.push_back(t);
    }
    return f;
  }
  bool ok(GpuTypeId t) const {
    if (t < 0) return false;
    return !restricted || std::find(allowed.begin(), allowed.end(), t) != allowed.end();
  }
};

// One gang's trial placement in the simulation, undone unless committed.
class Trial {
 public:
  void touch(SimNode& n) { saved_.emplace_back(&n, n); }
  void undo() {
    for (auto it = saved_.rbegin(); it != saved_.rend(); ++it) *it->first = it->second;
    saved_.clear();
  }
  // The Cluster's nodes the trial put pods on.
  std::vector<NodeId> real_nodes() const {
    std::vector<NodeId> out;
    for (const auto& [node, before] : saved_)
      if (before.node >= 0) out.push_back(before.node);
    return out;
  }

 private:
  std::vector<std::pair<SimNode*, SimNode>> saved_;
};

// What a pool would add for the rest of a gang.
struct Option {
  int pool = -1;
  std::vector<SimNode> fresh;  // the new nodes, after placement
  int64_t idle_gpu_milli = 0;
  int64_t idle_cpu_milli = 0;
  double price = 0;
};

// The state of one call.
class Simulation {
 public:
  Simulation(const Cluster& cluster, const std::vector<NodePoolSpec>& pools,
             std::span<const PoolState> states)
      : cluster_(cluster),
        pools_(pools),
        in_flight_(pools.size()),
        room_(pools.size()),
        size_(pools.size()) {
    std::map<GroupKeyLess::Key, int, GroupKeyLess> group_of;
    for (NodeId n = 0; n < cluster.node_count(); ++n) {
      if (!cluster.schedulable(n)) continue;
      const Resources& free = cluster.free(n);
      if (free.cpu_milli <= 0 && free.memory_bytes <= 0 && free.gpus <= 0 && free.gpu_milli <= 0)
        continue;
      SimNode s;
      s.cpu = free.cpu_milli;
      s.memory = free.memory_bytes;
      s.gpus = free.gpus;
      s.node = n;
      for (uint16_t m : cluster.gpu_free_milli(n))
        if (m > 0 && m < kMilliPerGpu) s.partial.push_back(m);
      const NodeInfo& info = cluster.node_info(n);
      const GroupKeyLess::Key key{info.node_class, &info.labels, &info.taints};
      auto [it, added] = group_of.emplace(key, static_cast<int>(groups_.size()));
      if (added) groups_.push_back(Group{info.node_class, &info.labels, &info.taints, {}, {}});
      Group& g = groups_[static_cast<size_t>(it->second)];
      const int index = static_cast<int>(nodes_.size());
      if (s.has_gpu_room()) g.gpu_nodes.push_back(index);
      g.all_nodes.push_back(index);
      nodes_.push_back(std::move(s));
    }
    for (size_t p = 0; p < pools.size(); ++p) {
      const PoolState& st = states[p];
      int up = 0;
      for (NodeId n : st.nodes)
        if (n >= 0 && n < cluster.node_count() && !cluster.removed(n)) ++up;
      room_[p] = pools[p].max_nodes - up - st.provisioning;
      size_[p] = up + st.provisioning;
      add_in_flight(static_cast<int>(p), st.provisioning);
    }
  }

  // Pool size (up + provisioning + added by this call) and how many more it may take.
  int size(int p) const { return size_[static_cast<size_t>(p)]; }
  int room(int p) const { return room_[static_cast<size_t>(p)]; }
  void add_in_flight(int p, int count) {
    const NodeClass& c = class_of(p);
    for (int i = 0; i < count; ++i)
      in_flight_[static_cast<size_t>(p)].push_back(SimNode::empty_of(c));
  }
  void grow(int p, int count) {
    size_[static_cast<size_t>(p)] += count;
    room_[static_cast<size_t>(p)] -= count;
  }
  void grow(int p, std::vector<SimNode> fresh) {
    grow(p, static_cast<int>(fresh.size()));
    auto& list = in_flight_[static_cast<size_t>(p)];
    for (SimNode& s : fresh) list.push_back(std::move(s));
  }
  const NodeClass& class_of(int p) const {
    return cluster_.topology()
        .classes[static_cast<size_t>(pools_[static_cast<size_t>(p)].node_class)];
  }

  // Why the gang may not use nodes with these labels and taints, or "".
  static std::string constraint_misfit(const JobSpec& job, const Labels& labels,
                                       const std::vector<Taint>& taints) {
    if (!selector_matches(job.node_selector, labels))
      return "the job's nodeSelector does not match its labels";
    for (const Taint& t : taints) {
      if (t.effect == TaintEffect::kPreferNoSchedule) continue;
      if (!tolerates_all(job.tolerations, {t})) return "taint " + describe(t) + " not tolerated";
    }
    return "";
  }

  bool fits_pod_class(const Resources& pod, const ModelFilter& models, const NodeClass& c) const {
    return !pod.needs_gpu() || models.ok(c.gpu_type);
  }

  // Step 1: places what it can of `order` (indices into pods) on existing and in-flight room;
  // returns the pods left over, in order.
  std::vector<int> place_on_room(const JobSpec& job, const std::vector<Resources>& pods,
                                 const std::vector<int>& order, const ModelFilter& models,
                                 Trial& trial) {
    std::vector<const Group*> groups;
    for (const Group& g : groups_)
      if (constraint_misfit(job, *g.labels, *g.taints).empty()) groups.push_back(&g);
    std::vector<int> pools;
    for (size_t p = 0; p < pools_.size(); ++p)
      if (!in_flight_[p].empty() &&
          constraint_misfit(job, pools_[p].labels, pools_[p].taints).empty())
        pools.push_back(static_cast<int>(p));
    std::vector<int> left;
    for (int i : order) {
      const Resources& pod = pods[static_cast<size_t>(i)];
      if (!place_existing(pod, groups, models, trial) &&
          !place_in_flight(pod, pools, models, trial))
        left.push_back(i);
    }
    return left;
  }

  // Step 2 for pool p: the new nodes the rest of the gang needs, or why p cannot take it.
  std::string try_pool(int p, const JobSpec& job, const std::vector<Resources>& pods,
                       const std::vector<int>& left, const ModelFilter& models, Option& out) const {
    const NodePoolSpec& pool = pools_[static_cast<size_t>(p)];
    const std::string misfit = constraint_misfit(job, pool.labels, pool.taints);
    if (!misfit.empty()) return misfit;
    const NodeClass& c = class_of(p);
    const SimNode empty = SimNode::empty_of(c);
    out = Option{};
    out.pool = p;
    for (int i : left) {
      const Resources& pod = pods[static_cast<size_t>(i)];
      if (!fits_pod_class(pod, models, c)) {
        if (c.gpu_type < 0) return "node class " + c.name + " has no GPU";
        return "GPU model " + cluster_.topology().gpus.at(c.gpu_type).name +
               " is not one the job allows (" + models.names + ")";
      }
      auto it = std::find_if(out.fresh.begin(), out.fresh.end(),
                             [&](const SimNode& s) { return s.fits(pod); });
      if (it == out.fresh.end()) {
        if (!empty.fits(pod))
          return "a pod of " + describe(pod) + " does not fit an empty node of class " + c.name;
        out.fresh.push_back(empty);
        it = out.fresh.end() - 1;
      }
      it->take(pod);
    }
    const int need = static_cast<int>(out.fresh.size());
    if (need > room(p))
      return "needs " + std::to_string(need) + (need == 1 ? " new node" : " new nodes") +
             ", room for " + std::to_string(std::max(0, room(p))) + " (max " +
             std::to_string(pool.max_nodes) + ")";
    for (const SimNode& s : out.fresh) {
      out.idle_gpu_milli += s.idle_gpu_milli();
      out.idle_cpu_milli += s.cpu;
    }
    out.price = need * pool.price_per_hour;
    return "";
  }

 private:
  bool place_existing(const Resources& pod, const std::vector<const Group*>& groups,
                      const ModelFilter& models, Trial& trial) {
    for (const Group* g : groups) {
      const NodeClass& c = cluster_.topology().classes[static_cast<size_t>(g->node_class)];
      if (!fits_pod_class(pod, models, c)) continue;
      for (int i : pod.needs_gpu() ? g->gpu_nodes : g->all_nodes) {
        SimNode& s = nodes_[static_cast<size_t>(i)];
        if (!s.fits(pod)) continue;
        trial.touch(s);
        s.take(pod);
        return true;
      }
    }
    return false;
  }

  bool place_in_flight(const Resources& pod, const std::vector<int>& pools,
                       const ModelFilter& models, Trial& trial) {
    for (int p : pools) {
      if (!fits_pod_class(pod, models, class_of(p))) continue;
      for (SimNode& s : in_flight_[static_cast<size_t>(p)]) {
        if (!s.fits(pod)) continue;
        trial.touch(s);
        s.take(pod);
        return true;
      }
    }
    return false;
  }

  const Cluster& cluster_;
  const std::vector<NodePoolSpec>& pools_;
  std::vector<SimNode> nodes_;
  std::vector<Group> groups_;
  std::vector<std::vector<SimNode>> in_flight_;  // per pool: provisioning and added this call
  std::vector<int> room_;
  std::vector<int> size_;
};

// Pods by GPU milli, CPU, memory, descending; ties in pod order.
std::vector<int> decreasing(const std::vector<Resources>& pods) {
  std::vector<int> order(pods.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const Resources& x = pods[static_cast<size_t>(a)];
    const Resources& y = pods[static_cast<size_t>(b)];
    return std::make_tuple(x.gpu_milli_total(), x.cpu_milli, x.memory_bytes) >
           std::make_tuple(y.gpu_milli_total(), y.cpu_milli, y.memory_bytes);
  });
  return order;
}

// What makes two gangs equal for the autoscaler.
std::string equivalence_key(const JobSpec& job, const std::vector<Resources>& pods) {
  std::string k;
  for (const Resources& r : pods)
    k += std::to_string(r.cpu_milli) + "," + std::to_string(r.memory_bytes) + "," +
         std::to_string(r.gpus) + "," + std::to_string(r.gpu_milli) + ";";
  k += "|";
  for (const std::string& m : job.allowed_gpu_models()) k += m + ",";
  k += "|";
  for (const auto& [key, value] : job.node_selector) k += key + "=" + value + ",";
  k += "|";
  for (const Toleration& t : job.tolerations)
    k += t.key + (t.op == Toleration::Operator::kExists ? "?" : "=") + t.value + ":" +
         (t.any_effect ? "*" : to_string(t.effect)) + ",";
  return k;
}

bool better(const Option& a, const Option& b, Expander e, const std::vector<NodePoolSpec>& pools) {
  const std::string& na = pools[static_cast<size_t>(a.pool)].name;
  const std::string& nb = pools[static_cast<size_t>(b.pool)].name;
  if (e == Expander::kPrice) return std::tie(a.price, na) < std::tie(b.price, nb);
  return std::tie(a.idle_gpu_milli, a.idle_cpu_milli, na) <
         std::tie(b.idle_gpu_milli, b.idle_cpu_milli, nb);
}

}  // namespace

ClusterAutoscaler::ClusterAutoscaler(std::vector<NodePoolSpec> pools, AutoscalerConfig config)
    : pools_(std::move(pools)), config_(config), last_scale_up_(pools_.size()) {
  assert(std::all_of(pools_.begin(), pools_.end(),
                     [](const NodePoolSpec& p) { return p.min_nodes <= p.max_nodes; }));
}

std::optional<Time> ClusterAutoscaler::empty_since(NodeId n) const {
  if (n < 0 || static_cast<size_t>(n) >= empty_since_.size()) return std::nullopt;
  const Time t = empty_since_[static_cast<size_t>(n)];
  if (t == Time::max()) return std::nullopt;
  return t;
}

AutoscalerDecision ClusterAutoscaler::run(const Cluster& cluster, std::span<const PoolState> pools,
                                          std::span<const JobSpec* const> pending, Time now) {
  assert(pools.size() == pools_.size());
  AutoscalerDecision out;
  Simulation sim(cluster, pools_, pools);
  std::vector<ScaleUp> ups(pools_.size());
  for (size_t p = 0; p < pools_.size(); ++p) ups[p].pool = static_cast<int>(p);

  // Pools below their minimum first.
  for (size_t p = 0; p < pools_.size(); ++p) {
    const int missing = pools_[p].min_nodes - sim.size(static_cast<int>(p));
    if (missing <= 0) continue;
    ups[p].count += missing;
    ups[p].to_min = missing;
    sim.grow(static_cast<int>(p), missing);
    sim.add_in_flight(static_cast<int>(p), missing);
  }

  std::vector<bool> wanted(static_cast<size_t>(cluster.node_count()), false);
  std::map<std::string, std::string> failed;  // equivalence key -> why
  const GpuCatalog& catalog = cluster.topology().gpus;
  const size_t limit =
      std::min(pending.size(), static_cast<size_t>(std::max(0, config_.max_gangs_per_call)));
  for (size_t g = 0; g < limit; ++g) {
    const JobSpec& job = *pending[g];
    ++out.considered;
    const ModelFilter models = ModelFilter::of(job, catalog);
    const std::vector<Resources> all = job.pod_requests();
    const int full = job.roles.empty() ? 0 : job.roles.back().replicas;
    const bool partial = job.min_replicas > 0 && !job.roles.empty() &&
                         job.roles.back().kind == RoleKind::kWorker && job.min_replicas < full;
    std::string why;
    bool done = false;
    for (int attempt = 0; attempt < (partial ? 2 : 1) && !done; ++attempt) {
      std::vector<Resources> pods = all;
      if (attempt == 1) pods.resize(pods.size() - static_cast<size_t>(full - job.min_replicas));
      const std::string key = equivalence_key(job, pods);
      if (const auto it = failed.find(key); it != failed.end()) {
        why = it->second;
        continue;
      }
      Trial trial;
      const std::vector<int> left = sim.place_on_room(job, pods, decreasing(pods), models, trial);
      if (left.empty()) {
        for (NodeId n : trial.real_nodes()) wanted[static_cast<size_t>(n)] = true;
        out.fits.push_back(static_cast<int>(g));
        done = true;
        break;
      }
      std::optional<Option> best;
      std::string reasons;
      for (size_t p = 0; p < pools_.size(); ++p) {
        Option o;
        const std::string no = sim.try_pool(static_cast<int>(p), job, pods, left, models, o);
        if (!no.empty()) {
          reasons += (reasons.empty() ? "pool " : "; pool ") + pools_[p].name + ": " + no;
          continue;
        }
        if (!best || better(o, *best, config_.expander, pools_)) best = std::move(o);
      }
      if (!best) {
        trial.undo();
        why = pools_.empty() ? "no node pool" : reasons;
        failed.emplace(key, why);
        continue;
      }
      for (NodeId n : trial.real_nodes()) wanted[static_cast<size_t>(n)] = true;
      ScaleUp& up = ups[static_cast<size_t>(best->pool)];
      up.count += static_cast<int>(best->fresh.size());
      up.gangs.push_back(static_cast<int>(g));
      sim.grow(best->pool, std::move(best->fresh));
      done = true;
    }
    if (!done) out.skipped.push_back(SkippedGang{static_cast<int>(g), why});
  }
  for (ScaleUp& up : ups) {
    if (up.count == 0) continue;
    last_scale_up_[static_cast<size_t>(up.pool)] = now;
    out.scale_ups.push_back(std::move(up));
  }

  // Scale-down.
  if (empty_since_.size() < static_cast<size_t>(cluster.node_count()))
    empty_since_.resize(static_cast<size_t>(cluster.node_count()), Time::max());
  for (size_t p = 0; p < pools_.size(); ++p) {
    const NodePoolSpec& pool = pools_[p];
    std::vector<std::pair<Time, NodeId>> candidates;
    for (NodeId n : pools[p].nodes) {
      if (n < 0 || n >= cluster.node_count() || cluster.removed(n)) continue;
      Time& since = empty_since_[static_cast<size_t>(n)];
      if (!cluster.owners_on(n).empty() || wanted[static_cast<size_t>(n)]) {
        since = Time::max();
        continue;
      }
      if (since == Time::max()) since = now;
      if (now - since >= config_.scale_down_unneeded_time) candidates.emplace_back(since, n);
    }
    const std::optional<Time>& last = last_scale_up_[p];
    if (last && now - *last < config_.scale_down_delay_after_add) continue;
    std::sort(candidates.begin(), candidates.end());
    const int removable = sim.size(static_cast<int>(p)) - pool.min_nodes;
    for (int i = 0; i < removable && i < static_cast<int>(candidates.size()); ++i)
      out.scale_downs.push_back(
          ScaleDown{static_cast<int>(p), candidates[static_cast<size_t>(i)].second});
  }
  return out;
}

}  // namespace gantry
