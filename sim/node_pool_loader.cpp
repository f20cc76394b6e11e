#include "sim/node_pool_loader.hpp"

#include <map>
#include <optional>
#include <string>

#include "engine/config/config_fields.hpp"
#include "engine/config/quote.hpp"
#include "sim/placement_constraints_loader.hpp"

namespace gantry {

namespace {

std::string known_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

int32_t read_node_class(const ConfigNode& n, const Topology& topology) {
  const std::string name = n.as_name();
  std::vector<std::string> names;
  for (size_t i = 0; i < topology.classes.size(); ++i) {
    if (topology.classes[i].name == name) return static_cast<int32_t>(i);
    names.push_back(topology.classes[i].name);
  }
  n.fail("unknown node class " + quote_for_message(name) +
         "; known classes: " + known_names(names) + " (spec.cluster.nodeClasses)");
}

RackId read_rack(const ConfigNode& n, const Topology& topology) {
  const std::string name = n.as_name();
  for (size_t i = 0; i < topology.racks.size(); ++i)
    if (topology.racks[i] == name) return static_cast<RackId>(i);
  n.fail("unknown rack " + quote_for_message(name) +
         "; known racks: " + known_names(topology.racks));
}

// A key with two spellings (min and CA's minSize): the value of whichever is given, and an
// error when both are.
std::optional<ConfigNode> either(const ConfigFields& m, std::string_view key,
                                 std::string_view alias, std::string_view whose) {
  std::optional<ConfigNode> a = m.optional(key);
  const std::optional<ConfigNode> b = m.optional(alias);
  if (a && b) {
    m.errors().add(*b, std::string(key) + " and " + std::string(alias) +
                           (whose.empty() ? "" : " (" + std::string(whose) + "'s spelling)") +
                           " are one setting; give one of them");
    return std::nullopt;
  }
  return a ? a : b;
}

int read_size(const ConfigNode& n) { return static_cast<int>(n.as_int(0, kMaxPoolNodes)); }

DelayDistribution read_provisioning(const ConfigNode& node, ConfigErrors& errors) {
  if (node.is_scalar()) return DelayDistribution::constant(node.as_duration());
  const ConfigFields m(node, {"min", "max", "median", "p90"}, errors);
  if (!m.valid()) return {};
  const bool uniform = m.has("min") || m.has("max");
  const bool lognormal = m.has("median") || m.has("p90");
  if (uniform == lognormal)
    node.fail(
        "expected a duration (fixed), {min, max} (uniform) or {median, p90} (log-normal), such "
        "as {median: 3m, p90: 6m}");
  if (uniform) {
    std::optional<Duration> lo, hi;
    m.read_required("min", [&](const ConfigNode& n) { lo = n.as_duration(); });
    m.read_required("max", [&](const ConfigNode& n) { hi = n.as_duration(); });
    if (!lo || !hi) return {};
    if (*hi < *lo)
      m.optional("max")->fail("max (" + m.optional("max")->as_string() + ") is below min (" +
                              m.optional("min")->as_string() + ")");
    return DelayDistribution::uniform(*lo, *hi);
  }
  std::optional<Duration> median, p90;
  m.read_required("median", [&](const ConfigNode& n) { median = n.as_positive_duration(); });
  m.read_required("p90", [&](const ConfigNode& n) { p90 = n.as_positive_duration(); });
  if (!median || !p90) return {};
  if (*p90 < *median)
    m.optional("p90")->fail("p90 (" + m.optional("p90")->as_string() + ") is below the median (" +
                            m.optional("median")->as_string() +
                            "); the 90th percentile is at least the median");
  return DelayDistribution::lognormal(*median, *p90);
}

SpotReclaim read_reclaim(const ConfigNode& node, ConfigErrors& errors) {
  SpotReclaim r;
  const ConfigFields m(node, {"meanTimeToReclaim", "notice"}, errors);
  m.read_required("meanTimeToReclaim",
                  [&](const ConfigNode& n) { r.mean_time_to_reclaim = n.as_positive_duration(); });
  m.read("notice", [&](const ConfigNode& n) { r.notice = n.as_duration(); });
  return r;
}

struct PoolEntry {
  NodePoolSpec spec;
  std::optional<ConfigNode> name;  // absent when the name had an error
};

PoolEntry read_pool(const ConfigNode& node, const Topology& topology, bool topology_ok,
                    ConfigErrors& errors) {
  PoolEntry e;
  NodePoolSpec& p = e.spec;
  const ConfigFields m(
      node,
      {"name", "nodeClass", "rack", "min", "minSize", "max", "maxSize", "initial", "provisioning",
       "pricePerHour", "capacityType", "reclaim", "labels", "taints"},
      errors);
  if (!m.valid()) return e;
  m.read_required("name", [&](const ConfigNode& n) {
    p.name = n.as_name();
    e.name = n;
  });
  p.node_class = -1;
  p.rack = -1;
  m.read_required("nodeClass", [&](const ConfigNode& n) {
    if (topology_ok) p.node_class = read_node_class(n, topology);
  });
  if (m.has("rack")) {
    m.read("rack", [&](const ConfigNode& n) {
      if (topology_ok) p.rack = read_rack(n, topology);
    });
  } else if (topology_ok) {
    if (topology.racks.size() == 1)
      p.rack = 0;
    else
      m.missing("rack", "; the cluster has " + std::to_string(topology.racks.size()) +
                            " racks: " + known_names(topology.racks));
  }

  const std::optional<ConfigNode> min_node = either(m, "min", "minSize", "Cluster Autoscaler");
  const std::optional<ConfigNode> max_node = either(m, "max", "maxSize", "Cluster Autoscaler");
  bool min_ok = !min_node && !(m.has("min") && m.has("minSize"));
  bool max_ok = false;
  if (min_node) min_ok = errors.attempt([&] { p.min_nodes = read_size(*min_node); });
  if (max_node) {
    max_ok = errors.attempt([&] {
      p.max_nodes = read_size(*max_node);
      if (p.max_nodes == 0) max_node->fail("expected at least 1 (a pool of 0 nodes never has any)");
    });
  } else if (!m.has("max") && !m.has("maxSize")) {
    m.missing("max", " (or maxSize): the most nodes the pool may have");
  }
  if (min_ok && max_ok && p.min_nodes > p.max_nodes) {
    errors.add(*min_node, "min (" + std::to_string(p.min_nodes) + ") is above max (" +
                              std::to_string(p.max_nodes) + ")");
    min_ok = false;
  }
  p.initial_nodes = p.min_nodes;
  m.read("initial", [&](const ConfigNode& n) {
    p.initial_nodes = read_size(n);
    if (min_ok && max_ok && (p.initial_nodes < p.min_nodes || p.initial_nodes > p.max_nodes))
      n.fail("initial (" + std::to_string(p.initial_nodes) + ") must be within min..max (" +
             std::to_string(p.min_nodes) + ".." + std::to_string(p.max_nodes) + ")");
  });

  m.read_required("provisioning",
                  [&](const ConfigNode& n) { p.provisioning = read_provisioning(n, errors); });
  m.read("pricePerHour", [&](const ConfigNode& n) {
    if (n.is_scalar() && !n.as_string().empty() && n.as_string().front() == '-')
      n.fail("a price cannot be negative, got " + quote_for_message(n.as_string()));
    p.price_per_hour = n.as_double(0, kMaxPricePerHour);
  });
  const bool capacity_ok = m.read("capacityType", [&](const ConfigNode& n) {
    p.capacity = n.as_enum<CapacityType>({{"on-demand", CapacityType::kOnDemand},
                                          {"spot", CapacityType::kSpot},
                                          {"ON_DEMAND", CapacityType::kOnDemand},
                                          {"SPOT", CapacityType::kSpot}});
  });
  if (capacity_ok || !m.has("capacityType")) {
    if (const std::optional<ConfigNode> r = m.optional("reclaim")) {
      if (p.spot())
        errors.attempt([&] { p.reclaim = read_reclaim(*r, errors); });
      else
        errors.add(*r,
                   "reclaim applies to spot pools only; this pool is on-demand (set "
                   "capacityType: spot)");
    } else if (p.spot()) {
      m.missing("reclaim",
                ": a spot pool says how often its nodes are taken back, such as "
                "{meanTimeToReclaim: 20h, notice: 2m}");
    }
  }
  if (const std::optional<ConfigNode> n = m.optional("labels")) p.labels = read_labels(*n, errors);
  if (const std::optional<ConfigNode> n = m.optional("taints")) p.taints = read_taints(*n, errors);
  return e;
}

}  // namespace

AutoscalingSpec read_autoscaling(const ConfigNode& node, const Topology& topology, bool topology_ok,
                                 ConfigErrors& errors) {
  AutoscalingSpec a;
  const ConfigFields m(node,
                       {"pools", "nodePools", "expander", "scaleDownUnneededTime",
                        "scaleDownDelayAfterAdd", "maxGangsPerLoop"},
                       errors);
  if (!m.valid()) return a;
  m.read("expander", [&](const ConfigNode& n) {
    a.autoscaler.expander =
        n.as_enum<Expander>({{"least-waste", Expander::kLeastWaste}, {"price", Expander::kPrice}});
  });
  m.read("scaleDownUnneededTime",
         [&](const ConfigNode& n) { a.autoscaler.scale_down_unneeded_time = n.as_duration(); });
  m.read("scaleDownDelayAfterAdd",
         [&](const ConfigNode& n) { a.autoscaler.scale_down_delay_after_add = n.as_duration(); });
  m.read("maxGangsPerLoop", [&](const ConfigNode& n) {
    a.autoscaler.max_gangs_per_call = static_cast<int>(n.as_int(1, 1'000'000));
  });

  std::optional<ConfigNode> pools = either(m, "pools", "nodePools", "");
  if (!pools && !m.has("pools") && !m.has("nodePools")) m.missing("pools");
  if (!pools) return a;
  std::vector<ConfigNode> items;
  const bool listed = errors.attempt([&] {
    items = pools->as_sequence();
    if (items.empty())
      pools->fail("expected at least one pool (without pools, leave autoscaling out)");
    if (static_cast<int64_t>(items.size()) > kMaxPools)
      pools->fail(std::to_string(items.size()) + " pools; at most " + std::to_string(kMaxPools) +
                  " are simulated");
  });
  if (!listed) return a;
  std::map<std::string, int, std::less<>> lines;  // pool name -> line of its first use
  for (const ConfigNode& item : items) {
    PoolEntry e = read_pool(item, topology, topology_ok, errors);
    if (e.name) {
      const auto [it, inserted] = lines.emplace(e.spec.name, e.name->location().line);
      if (!inserted)
        errors.add(*e.name, "duplicate pool name " + quote_for_message(e.spec.name) +
                                " (first used at line " + std::to_string(it->second) + ")");
    }
    a.pools.push_back(std::move(e.spec));
  }
  return a;
}

}  // namespace gantry
