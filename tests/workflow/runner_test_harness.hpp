#pragma once
// Shared set-up for the run scheduler tests (runner_*_test.cpp): a virtual-time loop, an
// in-memory store, the simulated executor and the scheduler, plus small builders for specs
// and a compact form of runs to compare against timelines worked out by hand.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/core/event_loop.hpp"
#include "workflow/runner/memory_run_store.hpp"
#include "workflow/runner/run_scheduler.hpp"
#include "workflow/runner/simulated_executor.hpp"
#include "workflow/runner/timeline.hpp"

namespace gantry::runner_test {

inline Time at(const std::string& text) {
  Time t;
  EXPECT_TRUE(parse_rfc3339(text, t)) << text;
  return t;
}
// A time on the tests' usual day, 2026-01-01, "HH:MM" or "HH:MM:SS" (UTC).
inline Time day(const std::string& hm) {
  return at("2026-01-01T" + (hm.size() == 5 ? hm + ":00" : hm) + "Z");
}
// "HH:MM" or "HH:MM:SS" (when seconds are not 0) of an instant, UTC; "-" for none.
inline std::string hm(const std::optional<Time>& t) {
  if (!t) return "-";
  std::string s = format_rfc3339(*t);
  return s.substr(17, 2) == "00" ? s.substr(11, 5) : s.substr(11, 8);
}

inline TaskSpec task(const std::string& name, Duration duration,
                     std::vector<std::string> depends_on = {}) {
  TaskSpec t;
  t.name = name;
  t.simulate.duration = duration;
  t.depends_on = std::move(depends_on);
  t.resources.cpu_milli = 1000;
  t.resources.memory_bytes = int64_t{1} << 30;
  return t;
}

// An hourly pipeline ("0 * * * *", UTC) starting 2026-01-01T00:00Z, one 10-minute task.
inline PipelineSpec hourly(const std::string& name = "p") {
  PipelineSpec p;
  p.name = name;
  ScheduleSpec s;
  s.cron = "0 * * * *";
  s.start = day("00:00");
  p.schedule = s;
  p.tasks.push_back(task("t", minutes(10)));
  return p;
}

// A pipeline without schedule (manual runs only).
inline PipelineSpec manual(const std::string& name, std::vector<TaskSpec> tasks) {
  PipelineSpec p;
  p.name = name;
  p.concurrency.max_active_runs = 0;
  p.tasks = std::move(tasks);
  return p;
}

struct Harness {
  explicit Harness(Time t0, uint64_t seed = 1, MemoryRunStore* shared_store = nullptr)
      : loop(EventLoop::virtual_time(t0)),
        store(shared_store != nullptr ? shared_store : &own_store),
        executor(*loop, seed),
        scheduler(*loop, *store, executor) {}

  // Runs until `t` (inclusive).
  void until(Time t) { loop->run_until(t); }
  OperatorAction action(ActionKind kind, Time when, const std::string& pipeline = "p",
                        std::optional<Time> logical = std::nullopt, std::string task = "") {
    OperatorAction a;
    a.at = when;
    a.kind = kind;
    a.pipeline = pipeline;
    a.logical_time = logical;
    a.task = std::move(task);
    scheduler.schedule(a);
    return a;
  }
  // A manual run of `pipeline` at `when`.
  void trigger(Time when, const std::string& pipeline = "p") {
    action(ActionKind::kTrigger, when, pipeline);
  }

  const Run& run(const std::string& pipeline, Time logical) {
    const Run* r = scheduler.find_run(pipeline, logical);
    EXPECT_NE(r, nullptr) << pipeline << " " << format_rfc3339(logical);
    static const Run kNone;
    return r != nullptr ? *r : kNone;
  }
  const TaskInstance& task_of(const std::string& pipeline, Time logical, const std::string& t) {
    const Run& r = run(pipeline, logical);
    for (const TaskInstance& i : r.tasks) {
      if (i.name == t) return i;
    }
    ADD_FAILURE() << "no task " << t;
    static const TaskInstance kNone;
    return kNone;
  }

  // "LT trigger state START-END" for every run of `pipeline`, times as hm().
  std::vector<std::string> runs(const std::string& pipeline = "p") const {
    std::vector<std::string> out;
    for (const Run& r : scheduler.timeline()) {
      if (r.pipeline != pipeline) continue;
      out.push_back(hm(r.logical_time) + " " + std::string(to_string(r.trigger)) + " " +
                    std::string(to_string(r.state)) + " " + hm(r.start) + "-" + hm(r.end));
    }
    return out;
  }
  // "state: START-END state, ..." for one task instance.
  std::string attempts(const std::string& pipeline, Time logical, const std::string& t) {
    const TaskInstance& i = task_of(pipeline, logical, t);
    std::string out = std::string(to_string(i.state)) + ":";
    for (const Attempt& a : i.attempts) {
      out += " " + hm(a.start) + "-" + hm(a.end) + " " + std::string(to_string(a.state));
    }
    return out;
  }
  std::vector<SchedulerEventKind> event_kinds() const {
    std::vector<SchedulerEventKind> out;
    for (const SchedulerEvent& e : store->events()) out.push_back(e.kind);
    return out;
  }
  bool has_event(SchedulerEventKind k) const {
    for (const SchedulerEvent& e : store->events()) {
      if (e.kind == k) return true;
    }
    return false;
  }

  std::unique_ptr<EventLoop> loop;
  MemoryRunStore own_store;
  MemoryRunStore* store;
  SimulatedExecutor executor;
  RunScheduler scheduler;
};

}  // namespace gantry::runner_test
