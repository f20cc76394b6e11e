#include "tools/gantry/compare_figures.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "report/number_format.hpp"

namespace gantry::cli {

namespace {

// The summary metrics (sim/results_export.cpp) in the text report's order.
struct SummaryMetric {
  const char* key;
  const char* section;
  const char* label;
  FigureUnit unit;
};
constexpr SummaryMetric kSummary[] = {
    {"jobs_total", "Jobs", "total", FigureUnit::kCount},
    {"jobs_finished", "Jobs", "finished", FigureUnit::kCount},
    {"jobs_running_at_end", "Jobs", "running at the end", FigureUnit::kCount},
    {"jobs_queued_at_end", "Jobs", "queued at the end", FigureUnit::kCount},
    {"jobs_inactive_at_end", "Jobs", "inactive at the end", FigureUnit::kCount},
    {"wait_s_mean", "Wait", "mean", FigureUnit::kSeconds},
    {"wait_s_p50", "Wait", "p50", FigureUnit::kSeconds},
    {"wait_s_p95", "Wait", "p95", FigureUnit::kSeconds},
    {"wait_s_p99", "Wait", "p99", FigureUnit::kSeconds},
    {"wait_s_max", "Wait", "max", FigureUnit::kSeconds},
    {"jct_s_mean", "Job completion time", "mean", FigureUnit::kSeconds},
    {"jct_s_p50", "Job completion time", "p50", FigureUnit::kSeconds},
    {"jct_s_p95", "Job completion time", "p95", FigureUnit::kSeconds},
    {"jct_s_p99", "Job completion time", "p99", FigureUnit::kSeconds},
    {"jct_s_max", "Job completion time", "max", FigureUnit::kSeconds},
    {"gpu_allocation_ratio", "GPUs", "allocated", FigureUnit::kShare},
    {"gpu_busy_ratio", "GPUs", "busy", FigureUnit::kShare},
    {"goodput", "Reliability", "goodput", FigureUnit::kShare},
    {"lost_gpu_hours", "Reliability", "lost", FigureUnit::kGpuHours},
    {"restarts_per_job", "Reliability", "restarts per job", FigureUnit::kPlain},
    {"cost", "Cost", "total", FigureUnit::kMoney},
    {"cost_per_finished_job", "Cost", "per finished job", FigureUnit::kMoney},
    {"cost_per_useful_gpu_hour", "Cost", "per useful GPU-hour", FigureUnit::kMoney},
};

bool has_table(Database& db, const char* name) {
  Statement s = db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?");
  s.bind_all(std::string(name));
  return s.step();
}

// The columns of `table` (one row per `name`) as figures of the section "<title> <name>".
struct Column {
  const char* column;
  const char* label;
  FigureUnit unit;
};
void read_rows(Database& db, const char* table, const char* title, const char* key_prefix,
               std::initializer_list<Column> columns, std::vector<Figure>& out) {
  if (!has_table(db, table)) return;
  std::string sql = "SELECT name";
  for (const Column& c : columns) sql += std::string(", ") + c.column;
  Statement s = db.prepare(sql + " FROM " + table + " ORDER BY name");
  while (s.step()) {
    const std::string name = s.column_text(0);
    int i = 1;
    for (const Column& c : columns) {
      if (!s.column_is_null(i)) {
        out.push_back(Figure{std::string(title) + " " + name, c.label,
                             std::string(key_prefix) + "." + name + "." + c.column,
                             s.column_double(i), c.unit});
      }
      ++i;
    }
  }
}

}  // namespace

std::vector<Figure> read_figures(Database& db) {
  std::map<std::string, double> summary;
  Statement s = db.prepare("SELECT metric, value FROM summary");
  while (s.step())
    if (!s.column_is_null(1)) summary[s.column_text(0)] = s.column_double(1);
  std::vector<Figure> out;
  for (const SummaryMetric& m : kSummary) {
    if (const auto it = summary.find(m.key); it != summary.end())
      out.push_back(Figure{m.section, m.label, m.key, it->second, m.unit});
  }
  read_rows(db, "queues", "Queue", "queue",
            {{"jobs", "jobs", FigureUnit::kCount},
             {"admitted", "admitted", FigureUnit::kCount},
             {"wait_p50_s", "wait p50", FigureUnit::kSeconds},
             {"wait_p95_s", "wait p95", FigureUnit::kSeconds},
             {"gpu_hours_used", "used", FigureUnit::kGpuHours},
             {"gpu_hours_borrowed", "borrowed", FigureUnit::kGpuHours},
             {"gpu_hours_lent", "lent", FigureUnit::kGpuHours},
             {"preemptions_suffered", "preemptions suffered", FigureUnit::kCount},
             {"preemptions_caused", "preemptions caused", FigureUnit::kCount},
             {"lost_gpu_hours", "lost", FigureUnit::kGpuHours}},
            out);
  read_rows(db, "services", "Service", "service",
            {{"requests", "requests", FigureUnit::kCount},
             {"p50_s", "latency p50", FigureUnit::kSeconds},
             {"p99_s", "latency p99", FigureUnit::kSeconds},
             {"slo_attainment", "SLO attainment", FigureUnit::kShare},
             {"gpu_hours", "GPUs", FigureUnit::kGpuHours},
             {"cold_starts", "cold starts", FigureUnit::kCount},
             {"max_replicas", "replicas at most", FigureUnit::kCount},
             {"unserved", "unserved", FigureUnit::kCount}},
            out);
  return out;
}

std::string format_figure(FigureUnit unit, double value) {
  switch (unit) {
    case FigureUnit::kCount:
      return with_commas(static_cast<int64_t>(std::llround(value)));
    case FigureUnit::kSeconds:
      return seconds_human(value);
    case FigureUnit::kShare:
      return percent(value);
    case FigureUnit::kGpuHours:
      return with_commas(value, 1) + " GPU-h";
    case FigureUnit::kMoney:
      return with_commas(value, 2);
    case FigureUnit::kPlain:
      break;
  }
  return fmt::format("{:.2f}", value);
}

std::string format_difference(FigureUnit unit, double difference) {
  const auto shown = [unit](double v) {
    return unit == FigureUnit::kShare ? fmt::format("{:.1f} pp", v * 100) : format_figure(unit, v);
  };
  // Rounded as shown: a difference that prints as zero is zero, without a sign.
  const std::string magnitude = shown(std::abs(difference));
  if (magnitude == shown(0.0)) return magnitude;
  return (difference > 0 ? "+" : "−") + magnitude;
}

}  // namespace gantry::cli
