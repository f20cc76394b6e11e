#pragma once
// A TaskExecutor the test drives by hand (task_executor.hpp, THE CONTRACT): start() only
// takes the attempt, queued; the test says when it runs and how it ends, from the test body
// (never from inside start(), kill() or adopt()). `from_before` plays the attempts a live
// cluster still holds after the scheduler's process was restarted.

#include <map>
#include <set>
#include <vector>

#include "workflow/runner/task_executor.hpp"

namespace gantry::runner_test {

class ScriptedExecutor final : public TaskExecutor {
 public:
  explicit ScriptedExecutor(std::set<AttemptId> from_before = {})
      : from_before_(std::move(from_before)) {}

  void start(const AttemptRequest& request, AttemptListener& listener) override {
    started.push_back(request.id);
    held_[request.id] = &listener;
  }
  KillAck kill(AttemptId id) override {
    killed.push_back(id);
    return held_.erase(id) != 0 ? KillAck::kKilled : KillAck::kUnknown;
  }
  bool adopt(AttemptId id, AttemptListener& listener) override {
    asked.push_back(id);
    if (from_before_.erase(id) == 0) return false;
    held_[id] = &listener;
    return true;
  }

  // The attempt's work starts (at `at`, <= now).
  void run(AttemptId id, Time at) { held_.at(id)->attempt_running(id, at); }
  // It ends now.
  void finish(AttemptId id, AttemptOutcome outcome = AttemptOutcome::kSucceeded) {
    AttemptListener* listener = held_.at(id);
    held_.erase(id);
    listener->attempt_finished(id, AttemptResult{outcome, {}});
  }
  // The executor loses track of it without saying so (its end will never be reported).
  void forget(AttemptId id) { held_.erase(id); }
  bool holds(AttemptId id) const { return held_.count(id) != 0; }

  std::vector<AttemptId> started, killed, asked;

 private:
  std::set<AttemptId> from_before_;
  std::map<AttemptId, AttemptListener*> held_;
};

}  // namespace gantry::runner_test
