// The text report of `gantry simulate` on hand-built runs (tests/sim/queue_fixtures.hpp), and
// the number formats its tables use.

#include "tools/gantry/text_report.hpp"

#include <gtest/gtest.h>

#include <string>

#include "report/number_format.hpp"
#include "sim/queue_summary.hpp"
#include "tests/sim/queue_fixtures.hpp"

namespace gantry {
namespace text_report_test {

using namespace gantry::testing;

std::string report_of(const ScenarioSpec& scenario) {
  const SimulationRun run = lab_run();
  return cli::text_report(scenario, summarize(run),
                          summarize_queues(run.log, scenario.policy.admission), "results.db");
}

// The Queues section shows the figures of queue_summary_test.cpp, each row padded to its
// columns: name 12 wide (no name is longer than 10), cohort 8, then right-aligned jobs (8),
// admitted, wait p50 and p95 (10 each); in the second table used, borrowed, lent, lost (10
// each, one decimal) and preempted, preempting (12 each).
//   research: waits {60, 240} s → p50 150 s = 2m30s, p95 231 s = 3m51s; 43,200 / 3,600 = 12.0
//             used, 14,400 / 3,600 = 4.0 borrowed, lost 2,700 / 3,600 = 0.75 → 0.8; preempted 2
//             (Preempted, InCohortReclamation), preempting 1 (train-b evicted train-a)
//   prod:     wait 300 s = 5m00s; 6.0 used, 4.0 lent; preempting 1 (urgent reclaimed)
//   scratch:  no cohort and no admitted job: dashes
TEST(TextReport, QueuesSectionWithAdmission) {
  const std::string out = report_of(lab_scenario());
  for (const char* line : {
           "  Queues      cohort      jobs  admitted  wait p50  wait p95\n",
           "  research    lab            2         2     2m30s     3m51s\n",
           "  prod        lab            2         1     5m00s     5m00s\n",
           "  scratch     —              0         0         —         —\n",
           "  GPU-hours         used  borrowed      lent      lost   preempted  preempting\n",
           "  research          12.0       4.0       0.0       0.8           2           1\n",
           "  prod               6.0       0.0       4.0       0.0           0           1\n",
           "  scratch            0.0       0.0       0.0       0.0           0           0\n",
       })
    EXPECT_NE(out.find(line), std::string::npos) << line << "\n" << out;
  // The jobs table gains the inactive column: 4 jobs, 2 finished, 0 running, 1 queued (eval),
  // 1 inactive (train-b).
  EXPECT_NE(out.find("  Jobs             total  finished   running    queued  inactive\n"
                     "                       4         2         0         1         1\n"),
            std::string::npos)
      << out;
  // After the existing sections, before the fingerprint.
  EXPECT_LT(out.find("GPU allocated"), out.find("  Queues"));
  EXPECT_LT(out.find("  Queues"), out.find("fingerprint"));
}

TEST(TextReport, NoQueuesSectionWithoutAdmission) {
  ScenarioSpec scenario = lab_scenario();
  scenario.policy.admission = AdmissionConfig{};
  const std::string out = report_of(scenario);
  EXPECT_EQ(out.find("Queues"), std::string::npos) << out;
  EXPECT_EQ(out.find("inactive"), std::string::npos) << out;
  EXPECT_NE(out.find("  Jobs             total  finished   running    queued\n"), std::string::npos)
      << out;
}

// A queue name longer than the column widens it for every row.
TEST(TextReport, LongQueueNamesWidenTheColumn) {
  ScenarioSpec scenario = lab_scenario();
  scenario.policy.admission.queues[2].name = "a-very-long-queue-name";  // 22 characters
  const std::string out = report_of(scenario);
  // Name column 22 + 2 = 24 wide.
  EXPECT_NE(out.find("  research                lab            2"), std::string::npos) << out;
  EXPECT_NE(out.find("  a-very-long-queue-name  —              0"), std::string::npos) << out;
}

TEST(NumberFormat, DecimalsWithCommas) {
  EXPECT_EQ(with_commas(1234.567, 1), "1,234.6");
  EXPECT_EQ(with_commas(1234567.0, 0), "1,234,567");
  EXPECT_EQ(with_commas(999.96, 1), "1,000.0");  // rounding carries into a new group
  EXPECT_EQ(with_commas(0.0, 1), "0.0");
  EXPECT_EQ(with_commas(-1234.5, 2), "-1,234.50");
  EXPECT_EQ(with_commas(-0.04, 1), "0.0") << "no minus sign on a rounded zero";
}

}  // namespace text_report_test
}  // namespace gantry
