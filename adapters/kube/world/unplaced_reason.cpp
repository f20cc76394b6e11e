#include "adapters/kube/world/unplaced_reason.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <bit>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace gantry::kube {

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
  int absent = 0;
  int not_ready = 0;
  int allocatable_unlike = 0;
  int cordoned = 0;
  std::map<std::string, int> tainted;
  std::map<std::string, int> not_matching;
  int other_model = 0;
  int all_out_of_service = 0;

  std::string text(const std::string& allowed_models) const {
    std::vector<std::string> parts;
    const auto add = [&](int n, const std::string& what) {
      if (n > 0) parts.push_back(fmt::format("{} {}", n, what));
    };
    add(absent, "without a Node object");
    add(not_ready, "not ready");
    add(allocatable_unlike, "with allocatable unlike their class");
    add(cordoned, "cordoned");
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

}  // namespace

std::string unplaced_reason(const LiveCluster& live, const JobSpec& gang) {
  const Cluster& c = live.cluster();
  const Resources need = gang.total_request();
  const bool wants_gpus = need.gpus > 0 || need.gpu_milli > 0;
  const std::vector<std::string> models = gang.allowed_gpu_models();
  std::set<GpuTypeId> allowed;
  for (const std::string& m : models) allowed.insert(c.topology().gpus.find(m));

  Causes causes;
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
    switch (live.bar(n)) {
      case LiveCluster::NodeBar::kAbsent:
        ++causes.absent;
        continue;
      case LiveCluster::NodeBar::kNotReady:
        ++causes.not_ready;
        continue;
      case LiveCluster::NodeBar::kAllocatableUnlike:
        ++causes.allocatable_unlike;
        continue;
      case LiveCluster::NodeBar::kCordoned:
        ++causes.cordoned;
        continue;
      case LiveCluster::NodeBar::kNone:
        break;
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
    const uint64_t unhealthy = live.unhealthy_gpus(n);
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
    const Resources& free = c.free(n);
    free_gpus += free.gpus;
    most_on_one = std::max(most_on_one, free.gpus);
    out_of_service += std::popcount(unhealthy);
    free_cpu_milli += free.cpu_milli;
    if (model >= 0) free_by_model[model] += free.gpus;
  }

  std::string models_text;
  for (const std::string& m : models) models_text += (models_text.empty() ? "" : "|") + m;
  if (total == 0) return "the cluster has no nodes";
  if (eligible == 0)
    return total == 1 ? "its one node is not eligible (" + causes.text(models_text) + ")"
                      : fmt::format("none of the {} nodes is eligible ({})", total,
                                    causes.text(models_text));
  std::string out;
  if (eligible < total)
    out = fmt::format("{} of {} nodes eligible ({}); ", eligible, total, causes.text(models_text));
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
  return out;
}

}  // namespace gantry::kube
