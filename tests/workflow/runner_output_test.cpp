// Run scheduler output: the JSON timeline (exact bytes, written by hand below) and the text
// timeline (timeline.hpp); a year of a 5-minute cron with catch-up (issue #4's performance
// case) checked for correctness, with its wall time printed for bench/RESULTS.md (no timing
// assertion).

#include <cstdio>
#include <sstream>

#include "tests/workflow/runner_test_harness.hpp"

namespace gantry::runner_test {
namespace {

gantry::Run sample_run() {
  gantry::Run r;
  r.pipeline = "p";
  r.logical_time = day("00:00");
  r.trigger = RunTrigger::kManual;
  r.state = RunState::kFailed;
  r.start = day("00:00");
  r.end = day("00:20");
  TaskInstance a{"a", TaskState::kSucceeded, {}, {}};
  a.attempts.push_back(Attempt{day("00:00"), day("00:10"), AttemptState::kSucceeded});
  TaskInstance b{"b", TaskState::kUpstreamFailed, {}, {}};
  r.tasks = {a, b};
  return r;
}

TEST(RunnerOutput, JsonIsExactlyTheDocumentedShape) {
  gantry::Run queued;
  queued.pipeline = "q";
  queued.logical_time = day("01:00");
  queued.trigger = RunTrigger::kBackfill;
  queued.state = RunState::kQueued;
  EXPECT_EQ(write_timeline_json({sample_run(), queued}, -1),
            R"({"runs":[{"pipeline":"p","logicalTime":"2026-01-01T00:00:00Z","trigger":"manual",)"
            R"("state":"failed","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:20:00Z",)"
            R"("tasks":[{"name":"a","state":"succeeded","attempts":[{"start":)"
            R"("2026-01-01T00:00:00Z","end":"2026-01-01T00:10:00Z","state":"succeeded"}]},)"
            R"({"name":"b","state":"upstream_failed","attempts":[]}]},)"
            R"({"pipeline":"q","logicalTime":"2026-01-01T01:00:00Z","trigger":"backfill",)"
            R"("state":"queued","start":null,"end":null,"tasks":[]}]})"
            "\n");
  EXPECT_EQ(write_timeline_json({}, -1), "{\"runs\":[]}\n");
}

// The streamed writer gives the bytes of the whole-document dump, pretty-printed too.
TEST(RunnerOutput, StreamedJsonEqualsWholeDocumentDump) {
  std::vector<gantry::Run> runs = {sample_run(), sample_run()};
  runs[1].logical_time = day("01:00");
  EXPECT_EQ(write_timeline_json(runs, 2), timeline_json(runs).dump(2) + "\n");
  EXPECT_EQ(write_timeline_json({}, 2), timeline_json({}).dump(2) + "\n");
}

// TimelineWriter streams to any ostream the bytes of the string forms, one run at a time.
TEST(RunnerOutput, TimelineWriterStreamsTheSameBytes) {
  std::vector<gantry::Run> runs = {sample_run(), sample_run()};
  runs[1].logical_time = day("01:00");
  for (int indent : {-1, 2}) {
    std::ostringstream out;
    TimelineWriter w(out, TimelineWriter::Format::kJson, indent);
    for (const gantry::Run& r : runs) w.add(r);
    w.finish();
    EXPECT_EQ(out.str(), timeline_json(runs).dump(indent) + "\n") << indent;
  }
  std::ostringstream text;
  TimelineWriter t(text, TimelineWriter::Format::kText);
  for (const gantry::Run& r : runs) t.add(r);
  t.finish();
  EXPECT_EQ(text.str(), write_timeline_text(runs));
}

// Issue 8: an attempt the executor ended with a reason shows it (JSON key only when present).
TEST(RunnerOutput, AttemptReasonIsShown) {
  gantry::Run r = sample_run();
  r.tasks[1].state = TaskState::kFailed;
  r.tasks[1].attempts.push_back(
      Attempt{day("00:10"), day("00:10"), AttemptState::kError, "can never be placed"});
  EXPECT_EQ(write_timeline_text({r}),
            "p 2026-01-01T00:00:00Z manual failed 2026-01-01T00:00:00Z..2026-01-01T00:20:00Z\n"
            "  b failed: 00:10:00Z-00:10:00Z error (can never be placed)\n");
  EXPECT_NE(write_timeline_json({r}, -1).find(R"("state":"error","reason":"can never be placed"})"),
            std::string::npos);
  EXPECT_EQ(write_timeline_json({sample_run()}, -1).find("reason"), std::string::npos);
}

TEST(RunnerOutput, TextTimeline) {
  EXPECT_EQ(write_timeline_text({sample_run()}),
            "p 2026-01-01T00:00:00Z manual failed 2026-01-01T00:00:00Z..2026-01-01T00:20:00Z\n"
            "  b upstream_failed\n");
}

// A 5-minute cron from 2025-01-01T00:00Z (2025 has 365 days), switched on one year later,
// T0 = 2026-01-01T00:00Z, catchup true, maxActiveRuns 1, a chain of 5 tasks of 10 s each (a
// run takes 50 s). Overdue at T0: 365 × 288 = 105,120 ticks (catchup); the tick at T0 itself
// is on time. Runs follow each other back to back while the queue is not empty; N runs take
// 50·N s while the ticks add one run per 300 s, so the backlog is gone after about
// 300 × 105,121 / 250 ≈ 126,145 runs ≈ 73 days. Run until T0 + 80 days: ticks
// 105,120 + 80 × 288 + 1 (the one at T0 + 80 d) = 128,161 runs; the last was created at the
// horizon and is running, the 128,160 others succeeded, and no two runs overlap.
TEST(RunnerOutput, YearOfFiveMinuteCronWithCatchup) {
  const Time start = at("2025-01-01T00:00:00Z");
  const Time t0 = at("2026-01-01T00:00:00Z");
  Harness h(t0);
  PipelineSpec p = hourly("year");
  p.schedule->cron = "*/5 * * * *";
  p.schedule->start = start;
  p.tasks.clear();
  for (int i = 0; i < 5; ++i) {
    std::vector<std::string> deps;
    if (i > 0) deps.push_back("t" + std::to_string(i - 1));
    p.tasks.push_back(task("t" + std::to_string(i), seconds(10), deps));
  }
  h.scheduler.add_pipeline(p);
  // Speed is measured in bench/ (bench/pipeline_year.sh); this test checks the outcome.
  h.scheduler.switch_on();
  h.until(t0 + days(80));
  std::vector<gantry::Run> runs = h.scheduler.timeline();

  ASSERT_EQ(runs.size(), 128'161u);
  size_t succeeded = 0, catchup = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].state == RunState::kSucceeded) ++succeeded;
    if (runs[i].trigger == RunTrigger::kCatchup) ++catchup;
    if (i > 0 && runs[i].start && runs[i - 1].end) {
      ASSERT_GE(*runs[i].start, *runs[i - 1].end) << i;
    }
  }
  EXPECT_EQ(succeeded, 128'160u);
  EXPECT_EQ(catchup, 105'120u);
  EXPECT_EQ(runs.back().state, RunState::kRunning);
  // The first catch-up run starts at T0 and its five tasks take 10 s each.
  EXPECT_EQ(*runs.front().start, t0);
  EXPECT_EQ(*runs.front().end, t0 + seconds(50));
  EXPECT_EQ(h.store->runs().size(), 128'161u);
}

}  // namespace
}  // namespace gantry::runner_test
