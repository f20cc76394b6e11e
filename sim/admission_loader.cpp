#include "sim/admission_loader.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "engine/config/config_fields.hpp"
#include "engine/config/limits.hpp"
#include "engine/config/quote.hpp"
#include "engine/config/units.hpp"
#include "sim/scenario_values.hpp"

namespace gantry {

namespace {

constexpr std::string_view kGpuAmount = "a number of GPUs such as 64 or 0.5";
constexpr std::string_view kCpuAmount = "a CPU amount such as 512, \"512\" or 500m";
constexpr std::string_view kMemoryAmount = "a size in bytes such as 4Ti or 64Gi";

// What a node that should have been a scalar is, for messages.
std::string describe_shape(const ConfigNode& n) {
  if (n.is_map()) return "a map";
  if (n.is_sequence()) return "a list";
  return "nothing (null)";
}

bool precedes(const ConfigNode& a, const ConfigNode& b) {
  const SourceLocation x = a.location();
  const SourceLocation y = b.location();
  return x.line != y.line ? x.line < y.line : x.column < y.column;
}

// The text of an amount: a scalar, not negative. The unit parsers refuse a sign too, but say
// only what they expected; a negative quota deserves its own words.
std::string amount_text(const ConfigNode& n, std::string_view what) {
  if (!n.is_scalar()) n.fail("expected " + std::string(what) + ", got " + describe_shape(n));
  const std::string text = n.as_string();
  if (!text.empty() && text.front() == '-')
    n.fail("an amount of quota cannot be negative, got " + quote_for_message(text));
  return text;
}

// GPUs in milli-GPUs: "64" = 64000, "0.5" = 500. The digits are read as a CPU quantity (the
// same exact decimal arithmetic), whose "m" suffix is refused so that an amount of GPUs has
// one spelling.
int64_t read_gpu_amount(const ConfigNode& n) {
  const std::string text = amount_text(n, kGpuAmount);
  const Result<int64_t> milli = parse_cpu_milli(text);
  const bool too_large = milli ? milli.value() > kMaxQuotaGpuMilli
                               : milli.error().find("out of range") != std::string::npos;
  if (too_large)
    n.fail("expected at most " + format_cpu_milli(kMaxQuotaGpuMilli) + " GPUs, got " +
           quote_for_message(text) + " (value out of range)");
  if (!milli || text.back() == 'm')
    n.fail("expected " + std::string(kGpuAmount) + " (at most three decimals), got " +
           quote_for_message(text));
  return milli.value();
}

int64_t read_cpu_amount(const ConfigNode& n) {
  amount_text(n, kCpuAmount);
  return n.as_cpu_milli(kMaxQuotaCpuMilli);
}

int64_t read_memory_amount(const ConfigNode& n) {
  amount_text(n, kMemoryAmount);
  return n.as_bytes(kMaxQuotaMemory);
}

// One amount of a quota or limit, with the node it was read from (for the checks across maps).
struct Amount {
  int64_t value = 0;
  ConfigNode node;
};
using Amounts = std::map<std::string, Amount>;  // by canonical resource name

// A GPU model named in a quota (a key of `gpu: {A100-80G: 48}`), as the catalog spells it.
std::string read_quota_model(const ConfigNode& key, const AdmissionContext& ctx) {
  if (!ctx.topology_ok) return key.as_name();
  return ctx.topology.gpus.at(read_gpu_type(key, ctx.topology.gpus, ctx.unknown_model_hint)).name;
}

// `gpu:` as a number (any model) or a map model -> number.
void read_gpu_amounts(const ConfigNode& n, const AdmissionContext& ctx, ConfigErrors& errors,
                      Amounts& out) {
  if (!n.is_map()) {
    out.emplace(kQuotaGpu, Amount{read_gpu_amount(n), n});
    return;
  }
  const std::vector<ConfigEntry> models = n.as_entries();
  if (models.empty()) n.fail("expected at least one GPU model, such as {A100-80G: 8}");
  std::map<std::string, std::string> written;  // canonical name -> as the file wrote it
  for (const ConfigEntry& e : models) {
    std::optional<int64_t> amount;
    errors.attempt([&] { amount = read_gpu_amount(e.value); });
    errors.attempt([&] {
      const std::string model = read_quota_model(e.key, ctx);
      const auto [it, inserted] = written.emplace(model, e.name);
      if (!inserted)
        e.key.fail("GPU model " + model + " is given twice (" + quote_for_message(it->second) +
                   " and " + quote_for_message(e.name) + " name the same model)");
      if (amount) out.emplace(quota_gpu_model(model), Amount{*amount, e.value});
    });
  }
}

// A quota, borrowingLimit or lendingLimit; nullopt when any of it had an error.
std::optional<Amounts> read_amounts(const ConfigNode& node, const AdmissionContext& ctx,
                                    ConfigErrors& errors) {
  const size_t before = errors.size();
  const ConfigFields m(node, {"gpu", "nvidia.com/gpu", "cpu", "memory"}, errors);
  if (!m.valid()) return std::nullopt;
  Amounts out;
  std::optional<ConfigNode> gpu = m.optional("gpu");
  if (const std::optional<ConfigNode> alias = m.optional("nvidia.com/gpu")) {
    if (gpu)
      errors.add(precedes(*gpu, *alias) ? *alias : *gpu,
                 "gpu and nvidia.com/gpu name the same resource (nvidia.com/gpu is Kueue's "
                 "name for it); give one of them");
    else
      gpu = alias;
  }
  if (gpu) errors.attempt([&] { read_gpu_amounts(*gpu, ctx, errors, out); });
  m.read("cpu", [&](const ConfigNode& n) {
    out.emplace(kQuotaCpu, Amount{read_cpu_amount(n), n});
  });
  m.read("memory", [&](const ConfigNode& n) {
    out.emplace(kQuotaMemory, Amount{read_memory_amount(n), n});
  });
  if (errors.size() != before) return std::nullopt;
  if (out.empty()) {
    errors.add(node, "expected at least one of: gpu, cpu, memory");
    return std::nullopt;
  }
  return out;
}

QuotaAmounts values_of(const Amounts& amounts) {
  QuotaAmounts out;
  for (const auto& [name, a] : amounts) out.emplace(name, a.value);
  return out;
}

bool has_per_model_gpu(const Amounts& a) {
  return std::any_of(a.begin(), a.end(),
                     [](const auto& e) { return e.first.rfind("gpu/", 0) == 0; });
}

// A limit names only resources of the quota: `what` is borrowingLimit or lendingLimit.
void check_limit_names(std::string_view what, const Amounts& limit, const Amounts& nominal,
                       ConfigErrors& errors) {
  for (const auto& [name, a] : limit) {
    if (nominal.count(name) != 0) continue;
    std::string message;
    if (name == kQuotaGpu && has_per_model_gpu(nominal)) {
      message = "the queue's quota gives GPUs per model, so its " + std::string(what) +
                " must too, such as gpu: {A100-80G: 8}";
    } else if (name.rfind("gpu/", 0) == 0 && nominal.count(kQuotaGpu) != 0) {
      message = "the queue's quota gives GPUs of any model (gpu: <number>), so its " +
                std::string(what) + " must too";
    } else {
      std::string names;
      for (const auto& entry : nominal) names += (names.empty() ? "" : ", ") + entry.first;
      message = std::string(what) + " limits " + name +
                ", which the queue's quota does not name (it names " + names +
                "); a limit applies only to a resource of the quota";
    }
    errors.add(a.node, message);
  }
}

// Kueue: a queue lends at most its nominal quota.
void check_lending(const Amounts& lending, const Amounts& nominal, ConfigErrors& errors) {
  for (const auto& [name, a] : lending) {
    const auto it = nominal.find(name);
    if (it == nominal.end() || a.value <= it->second.value) continue;
    errors.add(a.node, "lendingLimit of " + name + " (" + a.node.as_string() +
                           ") is more than the queue's nominal quota of it (" +
                           it->second.node.as_string() + "); a queue lends at most its quota");
  }
}

void read_preemption(const ConfigNode& node, QueueSpec& q, ConfigErrors& errors) {
  const ConfigFields m(node, {"withinQueue", "reclaimWithinCohort", "borrowWithinCohort"}, errors);
  m.read("withinQueue", [&](const ConfigNode& n) {
    q.within_queue = n.as_enum<PreemptionPolicy>(
        {{"Never", PreemptionPolicy::kNever},
         {"LowerPriority", PreemptionPolicy::kLowerPriority},
         {"LowerOrNewerEqualPriority", PreemptionPolicy::kLowerOrNewerEqualPriority}});
  });
  const bool reclaim_ok =
      !m.has("reclaimWithinCohort") || m.read("reclaimWithinCohort", [&](const ConfigNode& n) {
        q.reclaim_within_cohort =
            n.as_enum<PreemptionPolicy>({{"Never", PreemptionPolicy::kNever},
                                         {"LowerPriority", PreemptionPolicy::kLowerPriority},
                                         {"Any", PreemptionPolicy::kAny}});
      });
  const std::optional<ConfigNode> borrow = m.optional("borrowWithinCohort");
  if (!borrow) return;
  const ConfigFields b(*borrow, {"policy", "maxPriorityThreshold"}, errors);
  const bool policy_ok =
      b.valid() && (!b.has("policy") || b.read("policy", [&](const ConfigNode& n) {
        q.borrow_within_cohort = n.as_enum<bool>({{"Never", false}, {"LowerPriority", true}});
      }));
  if (policy_ok && reclaim_ok && q.borrow_within_cohort &&
      q.reclaim_within_cohort == PreemptionPolicy::kNever)
    errors.add(*b.optional("policy"),
               "borrowWithinCohort policy LowerPriority needs reclaimWithinCohort LowerPriority "
               "or Any (Kueue's rule: a queue that may not preempt to reclaim its own quota may "
               "not preempt to borrow either)");
  // Read with any policy: the issue's own example writes {policy: Never, maxPriorityThreshold:
  // 0}, and under Never the threshold simply has nothing to bound.
  b.read("maxPriorityThreshold", [&](const ConfigNode& n) {
    q.max_priority_threshold = static_cast<int>(n.as_int(kInt32Min, kInt32Max));
  });
}

// A queue, with the node of its name when that was read (duplicates are checked across
// queues); nullopt when the entry is not a map.
struct QueueEntry {
  QueueSpec spec;
  std::optional<ConfigNode> name;
};

std::optional<QueueEntry> read_queue(const ConfigNode& node, const AdmissionContext& ctx,
                                     ConfigErrors& errors) {
  const ConfigFields m(node,
                       {"name", "cohort", "quota", "borrowingLimit", "lendingLimit", "queueing",
                        "preemption", "fairSharing"},
                       errors);
  if (!m.valid()) return std::nullopt;
  QueueEntry out;
  QueueSpec& q = out.spec;
  if (m.read_required("name", [&](const ConfigNode& n) { q.name = n.as_name(); }))
    out.name = m.optional("name");
  const bool cohort_ok =
      !m.has("cohort") || m.read("cohort", [&](const ConfigNode& n) { q.cohort = n.as_name(); });

  std::optional<Amounts> nominal;
  if (const std::optional<ConfigNode> n = m.required("quota"))
    nominal = read_amounts(*n, ctx, errors);
  if (nominal) q.nominal = values_of(*nominal);
  // Kueue: "must be nil when cohort is empty", for either limit.
  const auto read_limit = [&](std::string_view key, const char* needs_cohort) {
    const std::optional<ConfigNode> n = m.optional(key);
    if (!n) return std::optional<Amounts>();
    if (cohort_ok && q.cohort.empty()) errors.add(*n, needs_cohort);
    std::optional<Amounts> limit = read_amounts(*n, ctx, errors);
    if (limit && nominal) check_limit_names(key, *limit, *nominal, errors);
    return limit;
  };
  if (const std::optional<Amounts> borrowing = read_limit(
          "borrowingLimit",
          "borrowingLimit needs a cohort: a queue without one has no one to borrow from"))
    q.borrowing = values_of(*borrowing);
  if (const std::optional<Amounts> lending =
          read_limit("lendingLimit",
                     "lendingLimit needs a cohort: a queue without one has no one to lend to")) {
    q.lending = values_of(*lending);
    if (nominal) check_lending(*lending, *nominal, errors);
  }

  m.read("queueing", [&](const ConfigNode& n) {
    q.queueing = n.as_enum<QueueingStrategy>({{"BestEffortFIFO", QueueingStrategy::kBestEffortFifo},
                                              {"StrictFIFO", QueueingStrategy::kStrictFifo}});
  });
  if (const std::optional<ConfigNode> n = m.optional("preemption")) read_preemption(*n, q, errors);
  if (const std::optional<ConfigNode> n = m.optional("fairSharing")) {
    const ConfigFields f(*n, {"weight"}, errors);
    f.read("weight", [&](const ConfigNode& w) { q.fair_weight = w.as_double(0, kMaxFairWeight); });
  }
  return out;
}

FairSharingConfig read_fair_sharing(const ConfigNode& node, ConfigErrors& errors) {
  const ConfigFields m(node, {"enabled", "enable", "preemptionStrategies"}, errors);
  FairSharingConfig f;
  std::optional<bool> enabled;
  m.read("enabled", [&](const ConfigNode& n) { enabled = n.as_bool(); });
  m.read("enable", [&](const ConfigNode& n) {
    const bool v = n.as_bool();
    if (enabled && *enabled != v)
      n.fail(
          "enable (Kueue's spelling) and enabled are one setting and disagree; give one of "
          "them");
    enabled = v;
  });
  f.enabled = enabled.value_or(false);
  m.read("preemptionStrategies", [&](const ConfigNode& list) {
    const std::vector<ConfigNode> items = list.as_sequence();
    if (items.empty())
      list.fail("expected at least one of: LessThanOrEqualToFinalShare, LessThanInitialShare");
    std::vector<FairSharingStrategy> strategies;
    for (const ConfigNode& item : items)
      errors.attempt([&] {
        const auto s = item.as_enum<FairSharingStrategy>(
            {{"LessThanOrEqualToFinalShare", FairSharingStrategy::kLessThanOrEqualToFinalShare},
             {"LessThanInitialShare", FairSharingStrategy::kLessThanInitialShare}});
        if (std::find(strategies.begin(), strategies.end(), s) != strategies.end())
          item.fail(std::string(to_string(s)) + " is listed twice");
        strategies.push_back(s);
      });
    f.strategies = strategies;
  });
  return f;
}

AdmissionFairSharingConfig read_admission_fair_sharing(const ConfigNode& node,
                                                       ConfigErrors& errors) {
  const ConfigFields m(node, {"usageHalfLife", "usageHalfLifeTime"}, errors);
  AdmissionFairSharingConfig a;
  std::optional<Duration> half_life;
  m.read("usageHalfLife", [&](const ConfigNode& n) { half_life = n.as_positive_duration(); });
  m.read("usageHalfLifeTime", [&](const ConfigNode& n) {
    const Duration d = n.as_positive_duration();
    if (half_life && *half_life != d)
      n.fail(
          "usageHalfLifeTime (Kueue's spelling) and usageHalfLife are one setting and "
          "disagree; give one of them");
    half_life = d;
  });
  if (half_life) a.usage_half_life = *half_life;
  return a;
}

// nullopt when `enable: false` turns the block off.
std::optional<WaitForPodsReadyConfig> read_wait_for_pods_ready(const ConfigNode& node,
                                                               ConfigErrors& errors) {
  const ConfigFields m(node, {"enable", "timeout", "backoffBase", "backoffMax", "backoffLimit"},
                       errors);
  WaitForPodsReadyConfig w;
  bool enabled = true;
  m.read("enable", [&](const ConfigNode& n) { enabled = n.as_bool(); });
  m.read("timeout", [&](const ConfigNode& n) { w.timeout = n.as_positive_duration(); });
  const bool base_ok = !m.has("backoffBase") || m.read("backoffBase", [&](const ConfigNode& n) {
    w.backoff_base = n.as_positive_duration();
  });
  const bool max_ok = !m.has("backoffMax") || m.read("backoffMax", [&](const ConfigNode& n) {
    w.backoff_max = n.as_positive_duration();
  });
  if (base_ok && max_ok && w.backoff_max < w.backoff_base) {
    if (const std::optional<ConfigNode> max = m.optional("backoffMax"))
      errors.add(*max, "backoffMax (" + max->as_string() + ") is below backoffBase (" +
                           format_duration_exact(w.backoff_base) +
                           (m.has("backoffBase") ? "" : ", the default") + ")");
    else
      errors.add(*m.optional("backoffBase"),
                 "backoffBase (" + m.optional("backoffBase")->as_string() +
                     ") is above backoffMax (" + format_duration_exact(w.backoff_max) +
                     ", the default); set backoffMax too");
  }
  m.read("backoffLimit",
         [&](const ConfigNode& n) { w.backoff_limit = static_cast<int>(n.as_int(0, kInt32Max)); });
  if (!enabled) return std::nullopt;
  return w;
}

}  // namespace

AdmissionConfig read_admission(const ConfigNode& node, const AdmissionContext& ctx,
                               ConfigErrors& errors, DeclaredQueues& declared) {
  declared = DeclaredQueues{};
  AdmissionConfig a;
  const ConfigFields m(node, {"queues", "fairSharing", "admissionFairSharing", "waitForPodsReady"},
                       errors);
  if (!m.valid()) {
    declared.known = false;
    return a;
  }
  std::vector<ConfigNode> items;
  const std::optional<ConfigNode> queues = m.required("queues");
  const bool listed = queues && errors.attempt([&] {
    items = queues->as_sequence();
    if (items.empty())
      queues->fail(
          "expected at least one queue (without queues, leave admission out: every job then "
          "goes straight to placement)");
    if (static_cast<int64_t>(items.size()) > kMaxQueues)
      queues->fail(std::to_string(items.size()) + " queues; at most " + std::to_string(kMaxQueues) +
                   " are simulated");
  });
  if (!listed) declared.known = false;
  if (listed) {
    std::map<std::string, int, std::less<>> lines;  // queue name -> line of its first use
    for (const ConfigNode& item : items) {
      std::optional<QueueEntry> q = read_queue(item, ctx, errors);
      if (!q || !q->name) {
        declared.known = false;
        if (!q) continue;
      } else {
        const auto [it, inserted] = lines.emplace(q->spec.name, q->name->location().line);
        if (inserted)
          declared.names.push_back(q->spec.name);
        else
          errors.add(*q->name, "duplicate queue name " + quote_for_message(q->spec.name) +
                                   " (first used at line " + std::to_string(it->second) + ")");
      }
      a.queues.push_back(std::move(q->spec));
    }
  }
  if (const std::optional<ConfigNode> n = m.optional("fairSharing"))
    a.fair_sharing = read_fair_sharing(*n, errors);
  if (const std::optional<ConfigNode> n = m.optional("admissionFairSharing"))
    a.admission_fair_sharing = read_admission_fair_sharing(*n, errors);
  if (const std::optional<ConfigNode> n = m.optional("waitForPodsReady"))
    a.wait_for_pods_ready = read_wait_for_pods_ready(*n, errors);
  return a;
}

}  // namespace gantry
