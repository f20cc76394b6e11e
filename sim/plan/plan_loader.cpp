#include "sim/plan/plan_loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/config/config_fields.hpp"
#include "engine/config/envelope.hpp"
#include "engine/config/quote.hpp"
#include "engine/config/units.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_metrics.hpp"

namespace gantry {

namespace {

// A limit in the unit of `unit` (see the header).
double read_limit(const ConfigNode& n, MetricUnit unit) {
  switch (unit) {
    case MetricUnit::kSeconds:
      return n.as_positive_duration().seconds();
    case MetricUnit::kRatio: {
      const std::string text = n.as_string();
      if (!text.empty() && text.back() == '%') {
        const Result<double> pct = parse_number(text.substr(0, text.size() - 1), 0, 100);
        if (!pct)
          n.fail(fmt::format("expected a ratio from 0 to 1 or a percentage, got {}",
                             quote_for_message(text)));
        return pct.value() / 100;
      }
      return n.as_double(0, 1);
    }
    case MetricUnit::kCount:
      return n.as_double(0, 1e12);
    case MetricUnit::kMoney:
      return n.as_double(0, 1e15);
  }
  return 0;
}

PlanPool read_pool(const ConfigNode& node, ConfigErrors& errors) {
  const ConfigFields f(node, {"class", "min", "max", "pricePerNodeHour", "nodesPerRack"}, errors);
  PlanPool p{.where = node.location(), .field = node.path()};
  if (!f.valid()) return p;
  f.read_required("class", [&](const ConfigNode& n) { p.node_class = n.as_name(); });
  f.read_required("min", [&](const ConfigNode& n) { p.min = n.as_int(0, kMaxPlanNodes); });
  f.read_required("max", [&](const ConfigNode& n) {
    p.max = n.as_int(0, kMaxPlanNodes);
    if (p.max < p.min) n.fail(fmt::format("max ({}) is below min ({})", p.max, p.min));
    if (p.max == 0) n.fail("expected at least 1 node at most");
  });
  f.read_required("pricePerNodeHour", [&](const ConfigNode& n) {
    p.price_per_node_hour = n.as_double(0, 1e9);
    if (!(p.price_per_node_hour > 0)) n.fail("expected a price above 0");
  });
  f.read("nodesPerRack",
         [&](const ConfigNode& n) { p.nodes_per_rack = n.as_int(1, kMaxPlanNodes); });
  return p;
}

PlanSpec read_plan(const Envelope& envelope, ConfigErrors& errors) {
  PlanSpec s;
  s.file = envelope.file;
  s.name = envelope.name;
  if (!envelope.spec) return s;
  const ConfigFields spec(
      *envelope.spec,
      {"base", "forecast", "pools", "slo", "confidence", "seeds", "maxSeeds", "minimize"}, errors);
  if (!spec.valid()) return s;
  spec.read_required("base", [&](const ConfigNode& n) {
    s.base_as_written = n.as_name();
    s.base_where = n.location();
    s.base = base_file_path(n);
  });
  spec.read("forecast", [&](const ConfigNode& n) {
    const ConfigFields f(n, {"growth"}, errors);
    f.read_required("growth", [&](const ConfigNode& g) {
      s.growth.clear();
      const std::vector<ConfigNode> items = g.as_sequence();
      if (items.empty()) g.fail("expected at least one arrival-rate multiplier");
      if (items.size() > 20) g.fail("expected at most 20 forecast steps");
      for (const ConfigNode& item : items)
        errors.attempt([&] {
          const double x = item.as_double(kMinSweepGrowth, kMaxSweepGrowth);
          s.growth.push_back(x);
        });
    });
  });
  spec.read_required("pools", [&](const ConfigNode& n) {
    const std::vector<ConfigNode> items = n.as_sequence();
    if (items.empty()) n.fail("expected at least one pool");
    if (items.size() > kMaxPlanPools)
      n.fail(fmt::format("expected at most {} pools, got {}", kMaxPlanPools, items.size()));
    std::set<std::string> classes;
    for (const ConfigNode& item : items) {
      const size_t before = errors.size();
      PlanPool p;
      errors.attempt([&] { p = read_pool(item, errors); });
      if (errors.size() != before) continue;
      if (!classes.insert(p.node_class).second)
        errors.add(item, fmt::format("class '{}' is planned twice", p.node_class));
      s.pools.push_back(std::move(p));
    }
  });
  spec.read("slo", [&](const ConfigNode& n) {
    const std::vector<ConfigEntry> entries = n.as_entries();
    if (entries.empty()) n.fail("expected at least one service level, e.g. {wait.p95: 1h}");
    for (const ConfigEntry& e : entries)
      errors.attempt([&] {
        const std::optional<MetricInfo> info = metric_info(e.name);
        if (!info)
          e.key.fail(fmt::format("unknown metric {}; expected one of: {}",
                                 quote_for_message(e.name), metric_names()));
        s.slos.push_back(PlanSlo{.metric = e.name,
                                 .limit = read_limit(e.value, info->unit),
                                 .at_most = info->lower_is_better,
                                 .text = e.value.as_string(),
                                 .where = e.value.location(),
                                 .field = e.value.path()});
      });
  });
  spec.read("confidence", [&](const ConfigNode& n) { s.confidence = n.as_double(0.5, 0.999); });
  spec.read("seeds", [&](const ConfigNode& n) { s.seeds = static_cast<int>(n.as_int(2, 1000)); });
  const bool max_given = spec.read("maxSeeds", [&](const ConfigNode& n) {
    s.max_seeds = static_cast<int>(n.as_int(2, 1000));
    if (s.max_seeds < s.seeds)
      n.fail(fmt::format("maxSeeds ({}) is below seeds ({})", s.max_seeds, s.seeds));
  });
  if (!max_given) s.max_seeds = std::max(s.max_seeds, s.seeds);
  spec.read("minimize", [&](const ConfigNode& n) {
    enum class Objective { kCost };
    n.as_enum<Objective>({{"cost", Objective::kCost}});
  });
  return s;
}

}  // namespace

PlanSpec load_plan_text(const std::string& text, const std::string& file_name) {
  return load_document<PlanSpec>(text, file_name, {"Plan"}, read_plan);
}

PlanSpec load_plan_file(const std::string& path) {
  return load_plan_text(read_text_file(path), path);
}

}  // namespace gantry
