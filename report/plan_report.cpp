#include "report/plan_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/number_format.hpp"
#include "report/svg_line_chart.hpp"
#include "report/sweep_report.hpp"
#include "report/text_table.hpp"
#include "sim/sweep/sweep_metrics.hpp"

namespace gantry {

namespace {

std::string money(double x) { return "$" + with_commas(x, 2); }

std::string value(const std::string& metric, double x) {
  return metric_value_text(metric_info(metric)->unit, x);
}

std::string sizes_text(const PlanSpec& plan, const std::vector<int64_t>& sizes) {
  std::string out;
  for (size_t i = 0; i < sizes.size(); ++i)
    out += fmt::format("{}{} {}", i ? ", " : "", plan.pools[i].node_class, with_commas(sizes[i]));
  return out;
}

std::string slo_text(const PlanSlo& s) {
  return fmt::format("{} {} {}", s.metric, s.at_most ? "≤" : "≥", value(s.metric, s.limit));
}

// The SLOs a configuration misses: "wait.p95 1h04m > 1h00m".
std::string misses(const std::vector<PlanSlo>& slos, const PlanEvaluation& e) {
  if (!e.valid) return "not a valid cluster";
  std::vector<std::string> out;
  for (size_t i = 0; i < slos.size(); ++i)
    if (!e.slos[i].holds)
      out.push_back(fmt::format("{} {} {} {}", slos[i].metric,
                                value(slos[i].metric, e.slos[i].pessimistic),
                                slos[i].at_most ? ">" : "<", value(slos[i].metric, slos[i].limit)));
  return out.empty() ? "meets every SLO" : fmt::format("{}", fmt::join(out, ", "));
}

}  // namespace

std::string plan_text_report(const PlanSpec& plan, const std::vector<PlanSlo>& slos,
                             const std::vector<std::string>& metrics, const PlanResult& result) {
  std::vector<std::string> pools, levels;
  for (const PlanPool& p : plan.pools)
    pools.push_back(fmt::format("{} {}–{} nodes at {}/node-hour", p.node_class, p.min, p.max,
                                money(p.price_per_node_hour)));
  for (const PlanSlo& s : slos) levels.push_back(slo_text(s));
  std::string out = fmt::format(
      "plan {}: base {}\n  pools  {}\n  SLOs   {} (at {:g} % confidence, the interval's "
      "pessimistic end)\n",
      plan.name, plan.base_as_written, fmt::join(pools, "; "), fmt::join(levels, ", "),
      plan.confidence * 100);
  const size_t wait =
      static_cast<size_t>(std::find(metrics.begin(), metrics.end(), "wait.p95") - metrics.begin());
  for (const PlanStepResult& step : result.steps) {
    out += fmt::format("\ngrowth {:g}×: ", step.growth);
    if (!step.answer) {
      out += fmt::format(
          "no configuration within the bounds meets every SLO. At the largest "
          "({}, {}/hour):\n",
          sizes_text(plan, step.largest->sizes), money(step.largest->cost_per_hour));
      for (size_t i = 0; i < slos.size(); ++i) {
        const SloCheck& c = step.largest->slos[i];
        if (c.holds) continue;
        if (!step.largest->valid || std::isnan(c.pessimistic)) {
          out += fmt::format("  {}: no value (nothing ran)\n", slos[i].metric);
          continue;
        }
        const double by = std::abs(c.pessimistic - slos[i].limit);
        out +=
            fmt::format("  {} is {} (pessimistic {}), {} {} its limit of {}\n", slos[i].metric,
                        value(slos[i].metric, c.stats.mean), value(slos[i].metric, c.pessimistic),
                        value(slos[i].metric, by), slos[i].at_most ? "over" : "under",
                        value(slos[i].metric, slos[i].limit));
      }
    } else {
      const PlanEvaluation& a = *step.answer;
      out += fmt::format("{} — {}/hour\n", sizes_text(plan, a.sizes), money(a.cost_per_hour));
      TextTable table({"SLO", "limit", "mean", "± 95% CI", "pessimistic", "n", "holds"});
      for (size_t i = 0; i < slos.size(); ++i) {
        const SloCheck& c = a.slos[i];
        table.add({slos[i].metric,
                   (slos[i].at_most ? "≤ " : "≥ ") + value(slos[i].metric, slos[i].limit),
                   value(slos[i].metric, c.stats.mean),
                   std::isnan(c.stats.ci95) ? "—" : "± " + value(slos[i].metric, c.stats.ci95),
                   value(slos[i].metric, c.pessimistic), std::to_string(c.stats.n),
                   c.holds ? "yes" : "no"});
      }
      out += table.render("  ");
      if (!step.neighbours.empty()) {
        out += "  minimal: one node fewer in any pool misses an SLO\n";
        for (const PlanNeighbour& n : step.neighbours)
          out += fmt::format("    {} ({}/hour): {}\n", sizes_text(plan, n.evaluation->sizes),
                             money(n.evaluation->cost_per_hour), misses(slos, *n.evaluation));
      }
    }
    out += "  frontier (cost against p95 wait; no cheaper configuration waits less):\n";
    std::vector<std::string> header{"$/hour"};
    for (const PlanPool& p : plan.pools) header.push_back(p.node_class);
    header.insert(header.end(), {"wait.p95", "meets SLOs"});
    TextTable frontier(header);
    for (const PlanEvaluation* e : step.frontier) {
      std::vector<std::string> row{with_commas(e->cost_per_hour, 2)};
      for (int64_t n : e->sizes) row.push_back(with_commas(n));
      row.push_back(value("wait.p95", e->stats[wait].mean));
      row.push_back(e->feasible ? "yes" : "no");
      frontier.add(row);
    }
    out += frontier.render("    ");
  }
  out += fmt::format(
      "\nsearch: {} simulations of {} configurations; the full grid is {} configurations, "
      "{} simulations at {} seeds ({:.2g} % of it)\n",
      with_commas(static_cast<int64_t>(result.simulations)), with_commas(static_cast<int64_t>([&] {
        size_t n = 0;
        for (const PlanStepResult& s : result.steps) n += s.configurations;
        return n;
      }())),
      with_commas(static_cast<int64_t>(result.full_grid_configurations)),
      with_commas(static_cast<int64_t>(result.full_grid_simulations)), plan.seeds,
      100.0 * static_cast<double>(result.simulations) / result.full_grid_simulations);
  return out;
}

std::string plan_frontier_svg(const PlanSpec& plan, const std::vector<PlanSlo>& slos,
                              const std::vector<std::string>& metrics, const PlanResult& result) {
  const size_t wait =
      static_cast<size_t>(std::find(metrics.begin(), metrics.end(), "wait.p95") - metrics.begin());
  double largest = 0;
  for (const PlanStepResult& step : result.steps)
    for (const PlanEvaluation* e : step.frontier) largest = std::max(largest, e->stats[wait].mean);
  for (const PlanSlo& slo : slos)
    if (slo.metric == "wait.p95") largest = std::min(largest, 3 * slo.limit);
  const double scale = largest >= 2 * 3600 ? 3600 : largest >= 120 ? 60 : 1;
  const char* unit = scale == 3600 ? "hours" : scale == 60 ? "minutes" : "seconds";
  LineChart chart{.title = fmt::format("{}: cost against p95 wait", plan.name),
                  .x_label = "cost per hour ($)",
                  .y_label = fmt::format("wait.p95 ({}), mean", unit)};
  // The limit of a wait.p95 SLO, if any, drawn; waits past three times it are off the chart.
  for (const PlanSlo& slo : slos)
    if (slo.metric == "wait.p95") {
      chart.limit = slo.limit / scale;
      chart.limit_label = "SLO " + seconds_human(slo.limit);
      chart.y_cap = 3 * slo.limit / scale;
    }
  for (const PlanStepResult& step : result.steps) {
    ChartSeries s{.name = fmt::format("growth {:g}×", step.growth)};
    for (const PlanEvaluation* e : step.frontier) {
      s.x.push_back(e->cost_per_hour);
      s.y.push_back(e->stats[wait].mean / scale);
      s.ci.push_back(e->stats[wait].ci95 / scale);
    }
    chart.series.push_back(std::move(s));
  }
  return render_svg(chart);
}

}  // namespace gantry
