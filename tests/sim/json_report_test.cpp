#include "sim/json_report.hpp"

#include <gtest/gtest.h>

#include "tests/sim/queue_fixtures.hpp"

namespace gantry {
namespace json_report_test {

using namespace gantry::testing;

// The queues array of the run in tests/sim/queue_fixtures.hpp: the figures worked out in
// queue_summary_test.cpp, under the documented keys and in the documented order, with null
// where there is nothing (scratch's cohort and waits).
TEST(JsonReport, QueuesArrayWithAdmission) {
  const SimulationRun run = lab_run();
  const ScenarioSpec scenario = lab_scenario();
  const nlohmann::ordered_json j = json_report(
      scenario, summarize(run), summarize_queues(run.log, scenario.policy.admission), "results.db");
  ASSERT_TRUE(j.contains("queues"));
  const nlohmann::ordered_json& q = j["queues"];
  ASSERT_EQ(q.size(), 3u);

  std::vector<std::string> keys;
  for (const auto& [key, value] : q[0].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "cohort", "jobs", "admitted", "wait_p50_s",
                                            "wait_p95_s", "gpu_hours_used", "gpu_hours_borrowed",
                                            "gpu_hours_lent", "preemptions_suffered",
                                            "preemptions_caused", "lost_gpu_hours"}));

  EXPECT_EQ(q[0]["name"], "research");
  EXPECT_EQ(q[0]["cohort"], "lab");
  EXPECT_EQ(q[0]["jobs"], 2);
  EXPECT_EQ(q[0]["admitted"], 2);
  EXPECT_DOUBLE_EQ(q[0]["wait_p50_s"].get<double>(), 150.0);        // 60 + 0.5·(240 − 60)
  EXPECT_DOUBLE_EQ(q[0]["wait_p95_s"].get<double>(), 231.0);        // 60 + 0.95·(240 − 60)
  EXPECT_DOUBLE_EQ(q[0]["gpu_hours_used"].get<double>(), 12.0);     // 43,200 s / 3,600
  EXPECT_DOUBLE_EQ(q[0]["gpu_hours_borrowed"].get<double>(), 4.0);  // 14,400 s / 3,600
  EXPECT_DOUBLE_EQ(q[0]["gpu_hours_lent"].get<double>(), 0.0);
  EXPECT_EQ(q[0]["preemptions_suffered"], 2);
  EXPECT_EQ(q[0]["preemptions_caused"], 1);
  EXPECT_DOUBLE_EQ(q[0]["lost_gpu_hours"].get<double>(), 0.75);  // 2,700 s / 3,600

  EXPECT_EQ(q[1]["name"], "prod");
  EXPECT_DOUBLE_EQ(q[1]["wait_p50_s"].get<double>(), 300.0);  // 55m − 50m
  EXPECT_DOUBLE_EQ(q[1]["gpu_hours_lent"].get<double>(), 4.0);
  EXPECT_EQ(q[1]["preemptions_caused"], 1);

  EXPECT_EQ(q[2]["name"], "scratch");
  EXPECT_TRUE(q[2]["cohort"].is_null());
  EXPECT_EQ(q[2]["admitted"], 0);
  EXPECT_TRUE(q[2]["wait_p50_s"].is_null());
  EXPECT_TRUE(q[2]["wait_p95_s"].is_null());

  // train-b is the one inactive job; the key exists only with admission.
  EXPECT_EQ(j["jobs"]["inactive_at_end"], 1);
}

// Without admission the report has its old shape: no queues key, no inactive count.
TEST(JsonReport, NoQueuesKeyWithoutAdmission) {
  const SimulationRun run = lab_run();
  ScenarioSpec scenario = lab_scenario();
  scenario.policy.admission = AdmissionConfig{};
  const nlohmann::ordered_json j = json_report(scenario, summarize(run), {}, "results.db");
  EXPECT_FALSE(j.contains("queues"));
  EXPECT_FALSE(j["jobs"].contains("inactive_at_end"));
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"scenario", "seed", "policy", "cluster", "start", "end",
                                            "events", "jobs", "wait_s", "jct_s", "gpu",
                                            "fingerprint", "results"}));
}

// Every job with exactly the documented keys; instants RFC 3339 (kT0 = 2026-01-01T00:00:00Z)
// or null; by is the preemptor's name or null.
TEST(JsonReport, JobListHasEveryJobAndItsEvictions) {
  const SimulationRun run = lab_run();
  const nlohmann::ordered_json jobs = json_jobs(run.log);
  ASSERT_EQ(jobs.size(), 4u);

  std::vector<std::string> keys;
  for (const auto& [key, value] : jobs[0].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "queue", "priority", "submit", "admitted",
                                            "start", "end", "state", "replicas", "evictions"}));

  const nlohmann::ordered_json& a = jobs[0];
  EXPECT_EQ(a["name"], "train-a");
  EXPECT_EQ(a["queue"], "research");
  EXPECT_EQ(a["priority"], 0);
  EXPECT_EQ(a["submit"], "2026-01-01T00:00:00Z");
  EXPECT_EQ(a["admitted"], "2026-01-01T00:01:00Z");  // 60 s
  EXPECT_EQ(a["start"], "2026-01-01T00:01:30Z");     // 90 s
  EXPECT_EQ(a["end"], "2026-01-01T03:00:00Z");       // 3 h
  EXPECT_EQ(a["state"], "finished");
  EXPECT_EQ(a["replicas"], 2);
  ASSERT_EQ(a["evictions"].size(), 2u);
  EXPECT_EQ(a["evictions"][0]["at"], "2026-01-01T00:04:30Z");  // 270 s
  EXPECT_EQ(a["evictions"][0]["reason"], "Preempted");
  EXPECT_EQ(a["evictions"][0]["by"], "train-b");
  EXPECT_EQ(a["evictions"][1]["at"], "2026-01-01T00:55:00Z");
  EXPECT_EQ(a["evictions"][1]["reason"], "InCohortReclamation");
  EXPECT_EQ(a["evictions"][1]["by"], "urgent");

  const nlohmann::ordered_json& b = jobs[1];
  EXPECT_EQ(b["submit"], "2026-01-01T00:00:30Z");
  EXPECT_EQ(b["admitted"], "2026-01-01T00:04:30Z");
  EXPECT_TRUE(b["start"].is_null());
  EXPECT_TRUE(b["end"].is_null());
  EXPECT_EQ(b["state"], "inactive");
  ASSERT_EQ(b["evictions"].size(), 2u);
  EXPECT_EQ(b["evictions"][0]["at"], "2026-01-01T00:09:30Z");  // 570 s
  EXPECT_EQ(b["evictions"][0]["reason"], "PodsReadyTimeout");
  EXPECT_TRUE(b["evictions"][0]["by"].is_null());

  const nlohmann::ordered_json& eval = jobs[3];
  EXPECT_EQ(eval["name"], "eval");
  EXPECT_EQ(eval["priority"], 0);
  EXPECT_EQ(eval["submit"], "2026-01-01T01:00:00Z");
  EXPECT_TRUE(eval["admitted"].is_null());
  EXPECT_EQ(eval["state"], "pending");
  EXPECT_EQ(eval["replicas"], 0);
  EXPECT_TRUE(eval["evictions"].is_array());
  EXPECT_TRUE(eval["evictions"].empty());
  EXPECT_EQ(jobs[2]["priority"], 10);
}

// A job in no queue (admission off) has queue null.
TEST(JsonReport, JobListQueueIsNullWithoutAdmission) {
  SimulationRun run = lab_run();
  run.jobs[3].queue.clear();
  EXPECT_TRUE(json_jobs(run.log)[3]["queue"].is_null());
}

}  // namespace json_report_test
}  // namespace gantry
