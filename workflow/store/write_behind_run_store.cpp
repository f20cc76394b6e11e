#include "workflow/store/write_behind_run_store.hpp"

#include <algorithm>
#include <functional>

#include "engine/store/store_error.hpp"

namespace gantry {

size_t WriteBehindRunStore::KeyHash::operator()(const RunKey& k) const {
  const size_t h = std::hash<std::string>{}(k.pipeline);
  return h ^ (std::hash<int64_t>{}(k.logical_time.micros()) + 0x9e3779b97f4a7c15ull + (h << 6) +
              (h >> 2));
}

WriteBehindRunStore::WriteBehindRunStore(SqliteRunStore& store) : store_(store) {
  last_id_ = store_.max_run_id();
  for (const auto& [pipeline, latest] : store_.latest_logical_times()) latest_[pipeline] = latest;
  thread_ = std::thread([this] { write_loop(); });
}

WriteBehindRunStore::~WriteBehindRunStore() {
  {
    std::lock_guard lock(mu_);
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void WriteBehindRunStore::throw_if_failed() const {
  if (!failed_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(mu_);
  std::rethrow_exception(error_);
}

bool WriteBehindRunStore::create_run(const Run& run) {
  throw_if_failed();
  RunKey key{run.pipeline, run.logical_time};
  const auto latest = latest_.find(run.pipeline);
  if (latest != latest_.end() && run.logical_time <= latest->second) {
    // Not later than every run of the pipeline: it may exist, held or stored.
    if (held_.contains(key)) return false;
    flush();
    if (store_.load_rows(key)) return false;
  }
  if (latest == latest_.end())
    latest_.emplace(run.pipeline, run.logical_time);
  else
    latest->second = std::max(latest->second, run.logical_time);
  RunRows rows;
  rows.id = ++last_id_;
  rows.run = run;
  for (TaskInstance& t : rows.run.tasks) t.attempts.clear();  // as SqliteRunStore writes it
  held_.emplace(std::move(key), std::move(rows));
  return true;
}

WriteBehindRunStore::RunRows& WriteBehindRunStore::held(const RunKey& key) {
  throw_if_failed();
  if (last_ && last_->run.logical_time == key.logical_time && last_->run.pipeline == key.pipeline)
    return *last_;
  if (const auto it = held_.find(key); it != held_.end()) return *(last_ = &it->second);
  // A change to a run written already (an operator's rerun of a finished run): it is read
  // back and held again; its rows are UPDATEd when it is written next.
  flush();
  std::optional<RunRows> rows = store_.load_rows(key);
  if (!rows) {
    throw StoreError(store_.database().path(),
                     "a change to run " + key.pipeline + " " + format_rfc3339(key.logical_time) +
                         ", which the database does not hold",
                     StoreError::kConstraint);
  }
  return *(last_ = &held_.emplace(key, std::move(*rows)).first->second);
}

TaskInstance& WriteBehindRunStore::task_of(RunRows& rows, const RunKey& key,
                                           std::string_view task) {
  for (TaskInstance& t : rows.run.tasks)
    if (t.name == task) return t;
  throw StoreError(store_.database().path(),
                   "a change to task '" + std::string(task) + "' of run " + key.pipeline + " " +
                       format_rfc3339(key.logical_time) + ", which has no such task",
                   StoreError::kConstraint);
}

Attempt& WriteBehindRunStore::attempt_of(RunRows& rows, const RunKey& key, std::string_view task,
                                         size_t index) {
  TaskInstance& t = task_of(rows, key, task);
  if (index >= t.attempts.size()) {
    throw StoreError(store_.database().path(),
                     "a change to attempt " + std::to_string(index) + " of task '" +
                         std::string(task) + "' of run " + key.pipeline + " " +
                         format_rfc3339(key.logical_time) + ", which has " +
                         std::to_string(t.attempts.size()) + " attempts",
                     StoreError::kConstraint);
  }
  return t.attempts[index];
}

void WriteBehindRunStore::update_run(const RunKey& key, RunState state, std::optional<Time> start,
                                     std::optional<Time> end) {
  RunRows& rows = held(key);
  rows.run.state = state;
  rows.run.start = start;
  rows.run.end = end;
  if (is_finished(state)) {
    finished_.push_back(key);
    hand_over_if_due();
  }
}

void WriteBehindRunStore::update_task(const RunKey& key, std::string_view task, TaskState state,
                                      const Resources& requests) {
  RunRows& rows = held(key);
  TaskInstance& t = task_of(rows, key, task);
  t.state = state;
  t.requests = requests;
}

void WriteBehindRunStore::attempt_started(const RunKey& key, std::string_view task, size_t index,
                                          AttemptId id, Time start) {
  RunRows& rows = held(key);
  TaskInstance& t = task_of(rows, key, task);
  // Attempts are numbered without gaps and written once (SqliteRunStore refuses a second
  // attempt of an index on its primary key; here it would replace one in memory).
  if (index != t.attempts.size()) {
    throw StoreError(store_.database().path(),
                     "attempt " + std::to_string(index) + " of task '" + std::string(task) +
                         "' of run " + key.pipeline + " " + format_rfc3339(key.logical_time) +
                         " follows " + std::to_string(t.attempts.size()) + " attempts",
                     StoreError::kConstraint);
  }
  Attempt a;
  a.start = start;
  a.id = id;
  t.attempts.push_back(std::move(a));
}

void WriteBehindRunStore::attempt_running(const RunKey& key, std::string_view task, size_t index,
                                          Time at) {
  RunRows& rows = held(key);
  attempt_of(rows, key, task, index).running = at;
}

void WriteBehindRunStore::attempt_ended(const RunKey& key, std::string_view task, size_t index,
                                        Time end, AttemptState state, std::string_view reason) {
  RunRows& rows = held(key);
  Attempt& a = attempt_of(rows, key, task, index);
  a.end = end;
  a.state = state;
  a.reason = std::string(reason);
}

void WriteBehindRunStore::record_event(const SchedulerEvent& event) {
  throw_if_failed();
  batch_.events.push_back(event);
  if (batch_.events.size() >= kBatchEvents) hand_over(/*everything=*/false);
}

void WriteBehindRunStore::hand_over_if_due() {
  if (finished_.size() >= kBatchRuns) hand_over(/*everything=*/false);
}

void WriteBehindRunStore::hand_over(bool everything) {
  // Finished runs leave memory in the order they finished (a run reopened since, by a
  // rerun, stays held; one listed twice moves once).
  for (const RunKey& key : finished_) {
    const auto it = held_.find(key);
    if (it == held_.end() || !is_finished(it->second.run.state)) continue;
    batch_.runs.push_back(std::move(it->second));
    if (last_ == &it->second) last_ = nullptr;
    held_.erase(it);
  }
  finished_.clear();
  if (everything) {
    for (auto& [key, rows] : held_) {
      batch_.runs.push_back(rows);
      rows.stored = true;
      rows.stored_attempts.clear();
      for (const TaskInstance& t : rows.run.tasks) rows.stored_attempts.push_back(t.attempts.size());
    }
  }
  if (batch_.runs.empty() && batch_.events.empty()) return;
  // Row ids in creation order within a batch, as the change-by-change writer's INSERTs gave
  // them (the UNIQUE index is cheaper to fill in order too).
  std::sort(batch_.runs.begin(), batch_.runs.end(),
            [](const RunRows& a, const RunRows& b) { return a.id < b.id; });
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return error_ || queue_.size() < kBatchesInFlight; });
  if (error_) std::rethrow_exception(error_);
  queue_.push_back(std::move(batch_));
  batch_ = Batch();
  changed_.notify_all();
}

void WriteBehindRunStore::flush() {
  hand_over(/*everything=*/true);
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return error_ || (queue_.empty() && !writing_); });
  if (error_) std::rethrow_exception(error_);
}

SqliteRunStore& WriteBehindRunStore::settled() {
  flush();
  return store_;
}

void WriteBehindRunStore::write_loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return closing_ || !queue_.empty(); });
    if (queue_.empty()) return;  // closing, nothing left
    Batch batch = std::move(queue_.front());
    queue_.pop_front();
    writing_ = true;
    lock.unlock();
    std::exception_ptr failed;
    try {
      store_.write_rows(batch.runs, batch.events);
    } catch (...) {
      failed = std::current_exception();
    }
    lock.lock();
    writing_ = false;
    if (failed) {
      error_ = failed;
      failed_.store(true, std::memory_order_release);
      queue_.clear();
    }
    changed_.notify_all();
    if (failed) return;
  }
}

std::vector<Run> WriteBehindRunStore::load_runs(RunSelection which) const {
  flush_for_read();
  return store_.load_runs(which);
}

std::optional<Run> WriteBehindRunStore::load_run(const RunKey& key) const {
  if (const auto it = held_.find(key); it != held_.end()) return it->second.run;
  flush_for_read();
  return store_.load_run(key);
}

std::optional<Run> WriteBehindRunStore::load_run_before(std::string_view pipeline,
                                                        Time before) const {
  flush_for_read();
  return store_.load_run_before(pipeline, before);
}

AttemptId WriteBehindRunStore::max_attempt_id() const {
  flush_for_read();
  return store_.max_attempt_id();
}

}  // namespace gantry
