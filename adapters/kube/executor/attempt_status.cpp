#include "adapters/kube/executor/attempt_status.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "adapters/kube/request_bodies.hpp"

namespace gantry::kube {

namespace {

using nlohmann::json;

const json& member(const json& object, const char* key) {
  static const json null;
  if (!object.is_object()) return null;
  const auto it = object.find(key);
  return it == object.end() ? null : *it;
}

std::string string_member(const json& object, const char* key) {
  const json& v = member(object, key);
  return v.is_string() ? v.get<std::string>() : std::string();
}

std::optional<Time> time_member(const json& object, const char* key) {
  const std::string text = string_member(object, key);
  return text.empty() ? std::nullopt : parse_kube_time(text);
}

bool terminal(PodPhase p) {
  return p == PodPhase::kSucceeded || p == PodPhase::kFailed || p == PodPhase::kGone;
}

bool started(const PodProgress& p) {
  return p.phase == PodPhase::kRunning || p.phase == PodPhase::kSucceeded ||
         (p.phase == PodPhase::kFailed && p.started.has_value());
}

}  // namespace

PodProgress read_pod(const json& pod) {
  PodProgress out;
  out.uid = string_member(member(pod, "metadata"), "uid");
  const json& status = member(pod, "status");
  const std::string phase = string_member(status, "phase");
  if (phase == "Pending") {
    out.phase = PodPhase::kPending;
  } else if (phase == "Running") {
    out.phase = PodPhase::kRunning;
  } else if (phase == "Succeeded") {
    out.phase = PodPhase::kSucceeded;
  } else if (phase == "Failed") {
    out.phase = PodPhase::kFailed;
  } else {
    out.phase = PodPhase::kUnknown;
  }
  // A pod just created has no status yet: it waits.
  if (phase.empty()) out.phase = PodPhase::kPending;

  // Its start: the latest container start, else status.startTime.
  const json& containers = member(status, "containerStatuses");
  std::optional<int32_t> exit_code;
  std::string termination;
  if (containers.is_array()) {
    for (const json& c : containers) {
      const json& state = member(c, "state");
      for (const char* s : {"running", "terminated"}) {
        if (const std::optional<Time> t = time_member(member(state, s), "startedAt"))
          out.started = out.started ? std::max(*out.started, *t) : *t;
      }
      const json& code = member(member(state, "terminated"), "exitCode");
      // The first non-zero exit code names the failure (else the first code).
      if (code.is_number_integer() && (!exit_code || (*exit_code == 0 && code.get<int>() != 0))) {
        exit_code = code.get<int32_t>();
        termination = string_member(member(state, "terminated"), "reason");
      }
    }
  }
  if (!out.started && (out.phase == PodPhase::kRunning || out.phase == PodPhase::kSucceeded))
    out.started = time_member(status, "startTime");

  const std::string reason = string_member(status, "reason");
  const std::string message = string_member(status, "message");
  if (reason == "NodeLost" || (out.phase == PodPhase::kFailed && !reason.empty())) {
    out.phase = PodPhase::kFailed;
    out.infrastructure = true;
    out.reason = message.empty() ? reason : reason + ": " + message;
  } else if (out.phase == PodPhase::kFailed) {
    out.reason = exit_code ? fmt::format("exit code {}", *exit_code) : "no exit code";
    if (!termination.empty()) out.reason += " (" + termination + ")";
    if (!message.empty()) out.reason += ": " + message;
  }
  return out;
}

void advance(PodProgress& known, const PodProgress& seen) {
  if (terminal(known.phase)) return;
  if (seen.phase == PodPhase::kUnknown) {
    if (known.uid.empty()) known.uid = seen.uid;
    if (known.phase == PodPhase::kAbsent) known.phase = PodPhase::kUnknown;
    return;
  }
  if (known.phase == PodPhase::kRunning && seen.phase == PodPhase::kPending) return;
  known = seen;
}

void mark_deleted(PodProgress& known) {
  if (terminal(known.phase)) return;
  known.phase = PodPhase::kGone;
  known.infrastructure = true;
  known.reason = "deleted before it finished";
}

AttemptVerdict judge(const std::vector<NamedPod>& pods, Time now) {
  AttemptVerdict v;
  const NamedPod* error = nullptr;
  const NamedPod* failed = nullptr;
  bool all_succeeded = !pods.empty();
  bool all_started = !pods.empty();
  Time since = Time::from_micros(INT64_MIN);
  for (const NamedPod& p : pods) {
    const PodProgress& s = p.progress;
    if (s.infrastructure && !error) error = &p;
    if (s.phase == PodPhase::kFailed && !s.infrastructure && !failed) failed = &p;
    if (s.phase != PodPhase::kSucceeded) all_succeeded = false;
    if (!started(s)) {
      all_started = false;
    } else {
      since = std::max(since, s.started.value_or(now));
    }
  }
  if (all_started) v.running_since = std::min(since, now);
  if (error != nullptr) {
    const PodProgress& s = error->progress;
    const std::string what =
        s.phase == PodPhase::kGone ? "pod " + error->name + " was " : "pod " + error->name + ": ";
    v.end = AttemptResult{AttemptOutcome::kError, {}, what + s.reason};
  } else if (failed != nullptr) {
    v.end = AttemptResult{
        AttemptOutcome::kFailed, {}, "pod " + failed->name + " failed: " + failed->progress.reason};
  } else if (all_succeeded) {
    v.end = AttemptResult{AttemptOutcome::kSucceeded, {}, ""};
  }
  return v;
}

}  // namespace gantry::kube
