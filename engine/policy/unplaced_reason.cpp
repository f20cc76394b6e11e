#include "engine/policy/unplaced_reason.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace gantry {

namespace {

std::string describe(const Taint& t) {
  return t.key + (t.value.empty() ? "" : "=" + t.value) + ":" + to_string(t.effect);
}

// The node's first NoSchedule or NoExecute taint no toleration matches, if any.
const Taint* untolerated(const std::vector<Taint>& taints,
                         const std::vector<Toleration>& tolerations) {
  for (const Taint& t : taints) {
    if (t.effect == TaintEffect::kPreferNoSchedule) continue;
    if (std::none_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& tol) { return tolerates(tol, t); }))
      return &t;
  }
  return nullptr;
}

// The first term of `selector` (key order) the labels miss, as "key=value"; nullopt: matches.
std::optional<std::string> missed_term(const Labels& selector, const Labels& labels) {
  for (const auto& [key, value] : selector) {
    const auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return key + "=" + value;
  }
  return std::nullopt;
}

// At most this many taints (or nodeSelector terms) are named; the rest are counted together, so
// that nodes each tainted their own way do not make a note longer than an Event holds (1024).
constexpr size_t kNamed = 4;

// Appends "<n> <prefix><what>" per group, largest first (then by text), the first kNamed of
// them, then "<n> <others>" for the nodes of the rest.
void add_groups(std::vector<std::string>& parts, const std::map<std::string, int>& groups,
                const std::string& prefix, const std::string& others) {
  std::vector<std::pair<int, std::string>> sorted;
  for (const auto& [what, n] : groups) sorted.emplace_back(-n, what);
  std::sort(sorted.begin(), sorted.end());
  int rest = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i < kNamed) {
      parts.push_back(fmt::format("{} {}{}", -sorted[i].first, prefix, sorted[i].second));
    } else {
      rest -= sorted[i].first;
    }
  }
  if (rest > 0) parts.push_back(fmt::format("{} {}", rest, others));
}

// Causes counted in the order of the header.
struct Causes {
  std::span<const std::string_view> bar_names;
  std::vector<int> barred;  // per NodeBars cause
  std::map<std::string, int> tainted;
  std::map<std::string, int> not_matching;
  int other_model = 0;
  int all_out_of_service = 0;

  std::string text(const std::string& allowed_models) const {
    std::vector<std::string> parts;
    const auto add = [&](int n, std::string_view what) {
      if (n > 0) parts.push_back(fmt::format("{} {}", n, what));
    };
    for (size_t i = 0; i < barred.size(); ++i) add(barred[i], bar_names[i]);
    add_groups(parts, tainted, "tainted ",
               fmt::format("tainted otherwise ({} more taints)",
                           tainted.size() > kNamed ? tainted.size() - kNamed : 0));
    add_groups(parts, not_matching, "not matching nodeSelector ",
               "not matching other terms of the nodeSelector");
    add(other_model, "with another GPU model (the gang takes " + allowed_models + ")");
    add(all_out_of_service, "with every GPU out of service");
    return fmt::format("{}", fmt::join(parts, ", "));
  }
};

// How many pods of shape `pod` (whole GPUs) fit in `free`.
int room_on(const Resources& free, const Resources& pod) {
  int room = free.gpus / pod.gpus;
  if (pod.cpu_milli > 0) room = std::min<int64_t>(room, free.cpu_milli / pod.cpu_milli);
  if (pod.memory_bytes > 0) room = std::min<int64_t>(room, free.memory_bytes / pod.memory_bytes);
  return room;
}

// The gang's largest whole-GPU pod and how many pods ask for as many GPUs; {} without GPUs.
struct LargestPods {
  Resources pod;
  int count = 0;
};
LargestPods largest_pods(const JobSpec& gang) {
  LargestPods out;
  for (const Resources& r : gang.pod_requests()) {
    if (r.gpus <= 0) continue;
    if (r.gpus > out.pod.gpus) out = LargestPods{r, 0};
    if (r.gpus == out.pod.gpus) {
      ++out.count;
      // Of the pods with the most GPUs, the one with the most cores and memory decides.
      out.pod.cpu_milli = std::max(out.pod.cpu_milli, r.cpu_milli);
      out.pod.memory_bytes = std::max(out.pod.memory_bytes, r.memory_bytes);
    }
  }
  return out;
}

// The room for the gang's largest pods, per GPU model and, for a gang kept to one domain, per
// domain (rack or node): the best of them, and the domain's name.
class Room {
 public:
  Room(const Cluster& c, const JobSpec& gang, LargestPods largest)
      : cluster_(c), largest_(largest) {
    if (gang.topology.required) level_ = gang.topology.level;
  }
  void add(NodeId n) {
    if (largest_.count == 0) return;
    const int room = room_on(cluster_.free(n), largest_.pod);
    int64_t domain = 0;
    if (level_ == TopologyConstraint::Level::kRack) domain = cluster_.rack_of(n);
    if (level_ == TopologyConstraint::Level::kNode || level_ == TopologyConstraint::Level::kIsland)
      domain = n;
    int& sum = by_domain_[{cluster_.gpu_type_of(n), domain}];
    sum += room;
    if (sum > best_ || (sum == best_ && best_domain_ < 0)) {
      best_ = sum;
      best_domain_ = domain;
    }
  }
  bool enough() const { return largest_.count > 0 && best_ >= largest_.count; }
  // "needs M pods of K GPUs[ (models)][ in one rack]: room for R; " or "" without GPU pods.
  std::string text(const std::string& models_text) const {
    if (largest_.count == 0) return {};
    std::string out = fmt::format("needs {} {} of {} GPUs", largest_.count,
                                  largest_.count == 1 ? "pod" : "pods", largest_.pod.gpus);
    if (!models_text.empty()) out += " (" + models_text + ")";
    switch (level_) {
      case TopologyConstraint::Level::kRack:
        out += " in one rack: ";
        if (best_domain_ >= 0)
          out += fmt::format("the best rack, {}, has ",
                             cluster_.topology().racks[static_cast<size_t>(best_domain_)]);
        break;
      case TopologyConstraint::Level::kNode:
      case TopologyConstraint::Level::kIsland:
        out += " on one node: ";
        if (best_domain_ >= 0)
          out += fmt::format("the best node, {}, has ",
                             cluster_.node_info(static_cast<NodeId>(best_domain_)).name);
        break;
      case TopologyConstraint::Level::kNone:
        out += ": ";
        break;
    }
    return out + fmt::format("room for {}; ", best_);
  }

 private:
  const Cluster& cluster_;
  LargestPods largest_;
  TopologyConstraint::Level level_ = TopologyConstraint::Level::kNone;
  std::map<std::pair<GpuTypeId, int64_t>, int> by_domain_;
  int best_ = 0;
  int64_t best_domain_ = -1;
};

constexpr std::string_view kClusterCauses[] = {"not ready", "cordoned"};

}  // namespace

std::span<const std::string_view> ClusterBars::causes() const { return kClusterCauses; }

int ClusterBars::bar(NodeId n) const {
  if (!cluster_.ready(n)) return 0;
  if (cluster_.cordoned(n)) return 1;
  return -1;
}

UnplacedReason explain_unplaced(const Cluster& c, const JobSpec& gang, const NodeBars& bars) {
  const Resources need = gang.total_request();
  const bool wants_gpus = need.gpus > 0 || need.gpu_milli > 0;
  const std::vector<std::string> models = gang.allowed_gpu_models();
  std::set<GpuTypeId> allowed;
  for (const std::string& m : models) allowed.insert(c.topology().gpus.find(m));

  Causes causes{bars.causes(), std::vector<int>(bars.causes().size(), 0), {}, {}, 0, 0};
  Room room(c, gang, largest_pods(gang));
  int total = 0;
  int eligible = 0;
  int free_gpus = 0;
  int most_on_one = 0;
  int out_of_service = 0;
  int64_t free_cpu_milli = 0;
  std::map<GpuTypeId, int> free_by_model;  // eligible GPU nodes' free GPUs, by model
  for (NodeId n = 0; n < c.node_count(); ++n) {
    if (c.removed(n)) continue;
    ++total;
    if (const int bar = bars.bar(n); bar >= 0) {
      ++causes.barred[static_cast<size_t>(bar)];
      continue;
    }
    const NodeInfo& info = c.node_info(n);
    if (const Taint* t = untolerated(info.taints, gang.tolerations)) {
      ++causes.tainted[describe(*t)];
      continue;
    }
    if (const auto term = missed_term(gang.node_selector, info.labels)) {
      ++causes.not_matching[*term];
      continue;
    }
    const GpuTypeId model = c.gpu_type_of(n);
    const uint64_t unhealthy = bars.unhealthy_gpus(n);
    if (wants_gpus && model >= 0) {
      if (!models.empty() && allowed.count(model) == 0) {
        ++causes.other_model;
        continue;
      }
      if (std::popcount(unhealthy) == c.gpu_count(n)) {
        ++causes.all_out_of_service;
        continue;
      }
    }
    ++eligible;
    room.add(n);
    const Resources& free = c.free(n);
    free_gpus += free.gpus;
    most_on_one = std::max(most_on_one, free.gpus);
    out_of_service += std::popcount(unhealthy);
    free_cpu_milli += free.cpu_milli;
    if (model >= 0) free_by_model[model] += free.gpus;
  }

  std::string models_text;
  for (const std::string& m : models) models_text += (models_text.empty() ? "" : "|") + m;
  if (total == 0) return {"the cluster has no nodes", false};
  if (eligible == 0)
    return {total == 1 ? "its one node is not eligible (" + causes.text(models_text) + ")"
                       : fmt::format("none of the {} nodes is eligible ({})", total,
                                     causes.text(models_text)),
            false};
  std::string out = room.text(models.empty() ? std::string() : models_text);
  if (eligible < total)
    out += fmt::format("{} of {} nodes eligible ({}); ", eligible, total, causes.text(models_text));
  out += fmt::format("{} GPUs free", free_gpus);
  if (free_by_model.size() > 1) {
    std::vector<std::string> by_model;
    for (const auto& [model, n] : free_by_model)
      by_model.push_back(fmt::format("{} {}", n, c.topology().gpus.at(model).name));
    out += fmt::format(" ({})", fmt::join(by_model, ", "));
  }
  out += fmt::format(" on {} eligible {}", eligible, eligible == 1 ? "node" : "nodes");
  if (eligible > 1 && free_gpus > 0) out += fmt::format(", at most {} on one node", most_on_one);
  if (out_of_service > 0) out += fmt::format(", {} more out of service", out_of_service);
  out += fmt::format(", {} cores free", free_cpu_milli / 1000.0);
  return {std::move(out), room.enough()};
}

}  // namespace gantry
