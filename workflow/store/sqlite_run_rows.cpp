// SqliteRunStore's whole-row writer (sqlite_run_store.hpp, "Whole rows"): what
// WriteBehindRunStore hands over, a batch of runs written once each instead of change by
// change. The columns hold exactly what the change-by-change writer would have left
// (row_values.hpp), so a replay's database is the same whichever writer wrote it.

#include "engine/store/store_error.hpp"
#include "workflow/store/row_values.hpp"
#include "workflow/store/sqlite_run_store.hpp"

namespace gantry {

using run_columns::micros;
using run_columns::params_text;
using run_columns::reason_or_null;

void SqliteRunStore::write_rows(const std::vector<RunRows>& runs,
                                const std::vector<SchedulerEvent>& events) {
  if (runs.empty() && events.empty()) return;
  if (insert_run_row_.empty()) {
    // Plain INSERTs, as in the change-by-change writer: the UNIQUE (pipeline, logical_us) and
    // the primary keys refuse a run or an attempt written twice instead of replacing it.
    insert_run_row_ = db_.prepare(
        "INSERT INTO runs(id, pipeline, logical_us, trigger, state, start_us, end_us, params)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    insert_attempt_row_ = db_.prepare(
        "INSERT INTO attempts(run_id, task, idx, attempt_id, start_us, running_us, end_us,"
        " state, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    update_attempt_row_ = db_.prepare(
        "UPDATE attempts SET running_us = ?, end_us = ?, state = ?, reason = ?"
        " WHERE run_id = ? AND task = ? AND idx = ?");
  }
  commit();  // an open batch of the change-by-change writer is its own transaction
  begin_change();
  Undo undo(*this);
  for (const RunRows& rows : runs) {
    const Run& run = rows.run;
    const BorrowedText state{to_string(run.state)};
    if (rows.stored) {
      update_run_.bind_all(state, micros(run.start), micros(run.end), rows.id);
      update_run_.step();
      update_run_.reset();
      expect_one_row("updating a run");
    } else {
      insert_run_row_.bind_all(rows.id, BorrowedText{run.pipeline}, run.logical_time.micros(),
                               BorrowedText{to_string(run.trigger)}, state, micros(run.start),
                               micros(run.end), params_text(run.params));
      insert_run_row_.step();
      insert_run_row_.reset();
    }
    for (size_t position = 0; position < run.tasks.size(); ++position) {
      const TaskInstance& t = run.tasks[position];
      const Resources& r = t.requests;
      if (rows.stored) {
        update_task_.bind_all(BorrowedText{to_string(t.state)}, r.cpu_milli, r.memory_bytes,
                              static_cast<int64_t>(r.gpus), static_cast<int64_t>(r.gpu_milli),
                              rows.id, BorrowedText{t.name});
        update_task_.step();
        update_task_.reset();
        expect_one_row("updating a task instance");
      } else {
        insert_task_.bind_all(rows.id, static_cast<int64_t>(position), BorrowedText{t.name},
                              BorrowedText{to_string(t.state)}, r.cpu_milli, r.memory_bytes,
                              static_cast<int64_t>(r.gpus), static_cast<int64_t>(r.gpu_milli));
        insert_task_.step();
        insert_task_.reset();
      }
      const size_t stored = position < rows.stored_attempts.size() ? rows.stored_attempts[position]
                                                                   : 0;
      for (size_t idx = 0; idx < t.attempts.size(); ++idx) {
        const Attempt& a = t.attempts[idx];
        if (idx < stored) {
          update_attempt_row_.bind_all(micros(a.running), micros(a.end),
                                       BorrowedText{to_string(a.state)}, reason_or_null(a.reason),
                                       rows.id, BorrowedText{t.name}, static_cast<int64_t>(idx));
          update_attempt_row_.step();
          update_attempt_row_.reset();
          expect_one_row("updating an attempt");
        } else {
          insert_attempt_row_.bind_all(rows.id, BorrowedText{t.name}, static_cast<int64_t>(idx),
                                       static_cast<int64_t>(a.id), a.start.micros(),
                                       micros(a.running), micros(a.end),
                                       BorrowedText{to_string(a.state)}, reason_or_null(a.reason));
          insert_attempt_row_.step();
          insert_attempt_row_.reset();
        }
      }
    }
  }
  for (const SchedulerEvent& e : events) {
    insert_event_.bind_all(e.at.micros(), BorrowedText{to_string(e.kind)},
                           BorrowedText{e.pipeline}, micros(e.logical_time), BorrowedText{e.task},
                           BorrowedText{e.message});
    insert_event_.step();
    insert_event_.reset();
  }
  commit();
  undo.keep();
}

std::optional<SqliteRunStore::RunRows> SqliteRunStore::load_rows(const RunKey& key) const {
  std::optional<Run> run = load_run(key);
  if (!run) return std::nullopt;
  RunRows rows;
  rows.id = run_id(key);
  ids_.erase(key);  // run_id() keeps what it looked up; the whole-row writer has its own
  rows.stored = true;
  for (const TaskInstance& t : run->tasks) rows.stored_attempts.push_back(t.attempts.size());
  rows.run = std::move(*run);
  return rows;
}

int64_t SqliteRunStore::max_run_id() const {
  auto& db = const_cast<Database&>(db_);  // reads only; Database has no const prepare
  Statement st = db.prepare("SELECT max(id) FROM runs");
  return st.step() ? st.column_int64(0) : 0;  // NULL (no runs) reads as 0
}

std::map<std::string, Time> SqliteRunStore::latest_logical_times() const {
  auto& db = const_cast<Database&>(db_);  // reads only; Database has no const prepare
  std::map<std::string, Time> out;
  // The UNIQUE (pipeline, logical_us) index answers it without reading the table.
  Statement st = db.prepare("SELECT pipeline, max(logical_us) FROM runs GROUP BY pipeline");
  while (st.step()) out[st.column_text(0)] = Time::from_micros(st.column_int64(1));
  return out;
}

}  // namespace gantry
