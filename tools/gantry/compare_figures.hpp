#pragma once
// The figures `gantry compare` puts side by side for two training runs, read from a results
// database (sim/results_writer.hpp), each with the section and unit of the text report
// (tools/gantry/text_report.hpp): jobs, waiting and completion times, the cluster's GPUs,
// reliability, cost, then each queue and each inference service.
//
// Units decide how a value and a difference read: durations as "12m34s" ("+1m02s"), shares
// as "78.3 %" (differences in percentage points, "+2.1 pp"), counts with thousands separators,
// GPU-hours and costs with their decimals.

#include <string>
#include <vector>

#include "engine/store/database.hpp"

namespace gantry::cli {

enum class FigureUnit { kCount, kSeconds, kShare, kGpuHours, kMoney, kPlain };

struct Figure {
  std::string section;  // "Jobs", "Queue research", ...
  std::string label;    // "wait p95"
  std::string key;      // the JSON name: a summary metric, or "queue.research.wait_p95_s"
  double value = 0;
  FigureUnit unit = FigureUnit::kPlain;
};

// Every figure the database holds, in the text report's order. Absent tables (a database of
// a run without queues or services) give no figures; NULL values are skipped.
std::vector<Figure> read_figures(Database& db);

// The value in its unit ("12m34s", "78.3 %", "1,234", "12.5 GPU-h", "1,234.56").
std::string format_figure(FigureUnit unit, double value);
// B − A in the same unit, signed ("+1m02s", "−2.1 pp", "+12", "0").
std::string format_difference(FigureUnit unit, double difference);

}  // namespace gantry::cli
