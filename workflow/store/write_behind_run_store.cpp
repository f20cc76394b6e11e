#include "workflow/store/write_behind_run_store.hpp"

#include <algorithm>
#include <functional>

#include "engine/store/store_error.hpp"

namespace gantry {

WriteBehindRunStore::WriteBehindRunStore(SqliteRunStore& store) : store_(store) {
  last_id_ = store_.max_run_id();
  for (const auto& [pipeline, latest] : store_.latest_logical_times())
    held_.note_latest(pipeline, latest);
  batch_.runs.reserve(kBatchRuns);
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
  const std::optional<Time> latest = held_.latest(run.pipeline);
  if (latest && run.logical_time <= *latest) {
    // Not later than every run of the pipeline: it may exist, held or stored.
    if (held_.find(run.pipeline, run.logical_time) != nullptr) return false;
    settle_writer();  // every run not held is in the database then
    if (store_.load_rows(RunKey{run.pipeline, run.logical_time})) return false;
  }
  RunRows rows;
  rows.id = ++last_id_;
  rows.run = run;
  for (TaskInstance& t : rows.run.tasks) t.attempts.clear();  // as SqliteRunStore writes it
  held_.add(std::move(rows));
  return true;
}

HeldRuns::Entry& WriteBehindRunStore::held(const RunKey& key) {
  throw_if_failed();
  if (HeldRuns::Entry* entry = held_.find(key.pipeline, key.logical_time)) return *entry;
  // A change to a run written already (an operator's rerun of a finished run): it is read
  // back and held again; its rows are UPDATEd when it is written next.
  settle_writer();
  std::optional<RunRows> rows = store_.load_rows(key);
  if (!rows) {
    throw StoreError(store_.database().path(),
                     "a change to run " + key.pipeline + " " + format_rfc3339(key.logical_time) +
                         ", which the database does not hold",
                     StoreError::kConstraint);
  }
  return held_.add(std::move(*rows));
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
  HeldRuns::Entry& entry = held(key);
  entry.rows.run.state = state;
  entry.rows.run.start = start;
  entry.rows.run.end = end;
  if (is_finished(state) && !entry.listed) {
    entry.listed = true;
    finished_.push_back(&entry);
    hand_over_if_due();
  }
}

void WriteBehindRunStore::update_task(const RunKey& key, std::string_view task, TaskState state,
                                      const Resources& requests) {
  RunRows& rows = held(key).rows;
  TaskInstance& t = task_of(rows, key, task);
  t.state = state;
  t.requests = requests;
}

void WriteBehindRunStore::attempt_started(const RunKey& key, std::string_view task, size_t index,
                                          AttemptId id, Time start) {
  RunRows& rows = held(key).rows;
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
  RunRows& rows = held(key).rows;
  attempt_of(rows, key, task, index).running = at;
}

void WriteBehindRunStore::attempt_ended(const RunKey& key, std::string_view task, size_t index,
                                        Time end, AttemptState state, std::string_view reason) {
  RunRows& rows = held(key).rows;
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
  // rerun, stays held).
  for (HeldRuns::Entry* entry : finished_) {
    entry->listed = false;
    if (is_finished(entry->rows.run.state)) batch_.runs.push_back(held_.take(*entry));
  }
  finished_.clear();
  if (everything) {
    held_.for_each([&](HeldRuns::Entry& entry) {
      RunRows& rows = entry.rows;
      batch_.runs.push_back(rows);
      rows.stored = true;
      rows.stored_attempts.clear();
      for (const TaskInstance& t : rows.run.tasks)
        rows.stored_attempts.push_back(t.attempts.size());
    });
  }
  if (batch_.runs.empty() && batch_.events.empty()) return;
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return error_ || queue_.size() < kBatchesInFlight; });
  if (error_) std::rethrow_exception(error_);
  queue_.push_back(std::move(batch_));
  changed_.notify_all();
  // The next batch reuses a written one: its rows are freed here, on the thread that
  // allocated them (freed on the writer, they contended for the allocator's lock with this
  // thread), and its vectors keep their capacity.
  std::vector<Batch> spent;
  spent.swap(spent_);
  lock.unlock();
  if (spent.empty()) {
    batch_ = Batch();
    batch_.runs.reserve(kBatchRuns);
  } else {
    batch_ = std::move(spent.back());
    batch_.runs.clear();
    batch_.events.clear();
  }
}

void WriteBehindRunStore::flush() {
  hand_over(/*everything=*/true);
  settle_writer();
}

void WriteBehindRunStore::settle_writer() const {
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
    spent_.push_back(std::move(batch));
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
  if (const HeldRuns::Entry* entry = held_.find(key.pipeline, key.logical_time))
    return entry->rows.run;
  settle_writer();  // a run not held is in the database once the writer is idle
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
