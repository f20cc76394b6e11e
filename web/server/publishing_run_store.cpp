#include "web/server/publishing_run_store.hpp"

#include <nlohmann/json.hpp>

#include "web/server/utf8_text.hpp"

namespace gantry::web {

namespace {

nlohmann::json time_or_null(const std::optional<Time>& t) {
  return t ? nlohmann::json(format_rfc3339(*t)) : nlohmann::json(nullptr);
}

nlohmann::json head(const RunKey& key) {
  return {{"pipeline", key.pipeline}, {"logicalTime", format_rfc3339(key.logical_time)}};
}

}  // namespace

PublishingRunStore::PublishingRunStore(RunStore& inner, EventBus& bus) : inner_(inner), bus_(bus) {}

std::optional<RunState> PublishingRunStore::state_before(const RunKey& key) const {
  if (const auto it = run_state_.find(key); it != run_state_.end()) return it->second;
  if (const std::optional<Run> stored = inner_.load_run(key)) return stored->state;
  return std::nullopt;
}

void PublishingRunStore::count_move(const RunKey& key, std::optional<RunState> from, RunState to) {
  if (is_finished(to)) {
    run_state_.erase(key);
  } else {
    run_state_[key] = to;
  }
  std::lock_guard lock(mu_);
  if (from) {
    const std::string word(to_string(*from));
    if (--metrics_.runs_by_state[word] == 0) metrics_.runs_by_state.erase(word);
  }
  ++metrics_.runs_by_state[std::string(to_string(to))];
}

bool PublishingRunStore::create_run(const Run& run) {
  if (!inner_.create_run(run)) return false;
  const RunKey key{run.pipeline, run.logical_time};
  count_move(key, std::nullopt, run.state);
  nlohmann::json j = head(key);
  j["trigger"] = to_string(run.trigger);
  j["state"] = to_string(run.state);
  j["start"] = time_or_null(run.start);
  j["end"] = time_or_null(run.end);
  publish("run", json_text(j));
  return true;
}

void PublishingRunStore::update_run(const RunKey& key, RunState state, std::optional<Time> start,
                                    std::optional<Time> end) {
  const std::optional<RunState> from = state_before(key);
  inner_.update_run(key, state, start, end);
  count_move(key, from, state);
  nlohmann::json j = head(key);
  j["state"] = to_string(state);
  j["start"] = time_or_null(start);
  j["end"] = time_or_null(end);
  publish("run", json_text(j));
}

void PublishingRunStore::update_task(const RunKey& key, std::string_view task, TaskState state,
                                     const Resources& requests) {
  inner_.update_task(key, task, state, requests);
  nlohmann::json j = head(key);
  j["task"] = task;
  j["state"] = to_string(state);
  publish("task", json_text(j));
}

void PublishingRunStore::publish_attempt(const RunKey& key, std::string_view task, size_t index,
                                         std::string_view state, const char* time_key, Time at,
                                         std::string_view reason) {
  nlohmann::json j = head(key);
  j["task"] = task;
  j["attempt"] = index;
  j["state"] = state;
  j[time_key] = format_rfc3339(at);
  if (!reason.empty()) j["reason"] = reason;
  publish("attempt", json_text(j));
}

void PublishingRunStore::attempt_started(const RunKey& key, std::string_view task, size_t index,
                                         AttemptId id, Time start) {
  inner_.attempt_started(key, task, index, id, start);
  attempt_start_[{key, std::string(task), index}] = start;
  publish_attempt(key, task, index, "queued", "start", start);
}

void PublishingRunStore::attempt_running(const RunKey& key, std::string_view task, size_t index,
                                         Time at) {
  inner_.attempt_running(key, task, index, at);
  attempt_start_[{key, std::string(task), index}] = at;
  publish_attempt(key, task, index, "running", "running", at);
}

void PublishingRunStore::attempt_ended(const RunKey& key, std::string_view task, size_t index,
                                       Time end, AttemptState state, std::string_view reason) {
  inner_.attempt_ended(key, task, index, end, state, reason);
  const auto it = attempt_start_.find({key, std::string(task), index});
  if (it != attempt_start_.end()) {
    const double s = (end - it->second).seconds();
    attempt_start_.erase(it);
    std::lock_guard lock(mu_);
    ++metrics_.attempts_ended;
    metrics_.attempt_seconds_sum += s;
    for (size_t i = 0; i < RunMetrics::kBuckets.size(); ++i)
      if (s <= RunMetrics::kBuckets[i]) {
        ++metrics_.attempt_le[i];
        break;
      }
  }
  publish_attempt(key, task, index, to_string(state), "end", end, reason);
}

void PublishingRunStore::record_event(const SchedulerEvent& event) { inner_.record_event(event); }

std::vector<Run> PublishingRunStore::load_runs(RunSelection which) const {
  return inner_.load_runs(which);
}

std::optional<Run> PublishingRunStore::load_run(const RunKey& key) const {
  return inner_.load_run(key);
}

std::optional<Run> PublishingRunStore::load_run_before(std::string_view pipeline,
                                                       Time before) const {
  return inner_.load_run_before(pipeline, before);
}

AttemptId PublishingRunStore::max_attempt_id() const { return inner_.max_attempt_id(); }

void PublishingRunStore::publish(std::string type, std::string data) {
  if (holding_) {
    held_.emplace_back(std::move(type), std::move(data));
  } else {
    bus_.publish(std::move(type), std::move(data));
  }
}

void PublishingRunStore::hold() { holding_ = true; }

void PublishingRunStore::release() {
  holding_ = false;
  for (auto& [type, data] : held_) bus_.publish(std::move(type), std::move(data));
  held_.clear();
}

void PublishingRunStore::discard() {
  holding_ = false;
  held_.clear();
}

void PublishingRunStore::seed_counts(std::map<std::string, int64_t> runs_by_state) {
  std::lock_guard lock(mu_);
  metrics_.runs_by_state = std::move(runs_by_state);
}

RunMetrics PublishingRunStore::metrics() const {
  std::lock_guard lock(mu_);
  return metrics_;
}

}  // namespace gantry::web
