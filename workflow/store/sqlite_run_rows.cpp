// SqliteRunStore's whole-row writer (sqlite_run_store.hpp, "Whole rows"): what
// WriteBehindRunStore hands over, a batch of runs written once each instead of change by
// change. The columns hold exactly what the change-by-change writer would have left
// (row_values.hpp), so a replay's database is the same whichever writer wrote it.

#include <algorithm>

#include "engine/store/store_error.hpp"
#include "workflow/store/row_values.hpp"
#include "workflow/store/sqlite_run_store.hpp"

namespace gantry {

using run_columns::micros;
using run_columns::params_text;
using run_columns::reason_or_null;

namespace {

// Rows per INSERT statement: a statement of many rows runs its program, opens its cursors
// and resets once for them all (callgrind of bench/pipelines_year.sh 100 1, the writer's
// instructions: one row a statement 2.46 G, 32 rows 1.85 G, 128 rows 1.82 G with the journal in
// memory). 128 rows of at most 9 columns stay far below SQLite's limit of 32,766 parameters.
constexpr size_t kRowsPerInsert = 128;

// "INSERT INTO table(columns) VALUES (?, ...), (?, ...)" for `rows` rows of `columns`.
std::string insert_sql(const std::string& head, int columns, size_t rows) {
  std::string one = "(";
  for (int c = 0; c < columns; ++c) one += c == 0 ? "?" : ", ?";
  one += ")";
  std::string sql = head + " VALUES ";
  for (size_t r = 0; r < rows; ++r) sql += (r == 0 ? "" : ", ") + one;
  return sql;
}

// One table's INSERTs of whole rows: kRowsPerInsert rows per statement, the rest one by one.
class RowInserter {
 public:
  RowInserter(Database& db, const std::string& head, int columns)
      : many_(db.prepare(insert_sql(head, columns, kRowsPerInsert))),
        one_(db.prepare(insert_sql(head, columns, 1))),
        columns_(columns) {}

  // bind(statement, first parameter, row) binds one row's columns.
  template <typename Row, typename Bind>
  void insert(const std::vector<Row>& rows, const Bind& bind) {
    size_t i = 0;
    for (; i + kRowsPerInsert <= rows.size(); i += kRowsPerInsert) {
      for (size_t r = 0; r < kRowsPerInsert; ++r)
        bind(many_, static_cast<int>(r) * columns_ + 1, rows[i + r]);
      many_.step();
      many_.reset();
    }
    for (; i < rows.size(); ++i) {
      bind(one_, 1, rows[i]);
      one_.step();
      one_.reset();
    }
  }

 private:
  Statement many_, one_;
  int columns_;
};

}  // namespace

struct SqliteRunStore::RowStatements {
  RowInserter runs, tasks, attempts;
  Statement update_attempt;
};

void SqliteRunStore::RowStatementsDeleter::operator()(RowStatements* statements) const {
  delete statements;
}

void SqliteRunStore::write_rows(const std::vector<RunRows>& runs,
                                const std::vector<SchedulerEvent>& events) {
  if (runs.empty() && events.empty()) return;
  if (!row_statements_) {
    // Plain INSERTs, as in the change-by-change writer: the UNIQUE (pipeline, logical_us) and
    // the primary keys refuse a run or an attempt written twice instead of replacing it.
    row_statements_.reset(new RowStatements{
        RowInserter(db_,
                    "INSERT INTO runs(id, pipeline, logical_us, trigger, state, start_us, end_us,"
                    " params)",
                    8),
        RowInserter(db_,
                    "INSERT INTO task_instances(run_id, position, name, state, cpu_milli,"
                    " memory_bytes, gpus, gpu_milli)",
                    8),
        RowInserter(db_,
                    "INSERT INTO attempts(run_id, task, idx, attempt_id, start_us, running_us,"
                    " end_us, state, reason)",
                    9),
        db_.prepare("UPDATE attempts SET running_us = ?, end_us = ?, state = ?, reason = ?"
                    " WHERE run_id = ? AND task = ? AND idx = ?")});
  }
  RowStatements& rows = *row_statements_;
  // What is new, gathered per table, in the order of the runs' ids: a batch holds runs in the
  // order they finished, and rows in key order fill each table's B-tree at its end instead of
  // at a hundred places (a page split each time one fills). A run's row comes before its task
  // instances' (their foreign key).
  std::vector<const RunRows*> ordered;
  ordered.reserve(runs.size());
  for (const RunRows& r : runs) ordered.push_back(&r);
  std::sort(ordered.begin(), ordered.end(),
            [](const RunRows* a, const RunRows* b) { return a->id < b->id; });
  struct TaskRow {
    int64_t run_id;
    size_t position;
    const TaskInstance* task;
  };
  struct AttemptRow {
    int64_t run_id;
    const TaskInstance* task;
    size_t idx;
  };
  std::vector<const RunRows*> new_runs;
  std::vector<TaskRow> new_tasks;
  std::vector<AttemptRow> new_attempts;
  for (const RunRows* run : ordered) {
    const RunRows& r = *run;
    if (!r.stored) new_runs.push_back(&r);
    for (size_t position = 0; position < r.run.tasks.size(); ++position) {
      const TaskInstance& t = r.run.tasks[position];
      if (!r.stored) new_tasks.push_back(TaskRow{r.id, position, &t});
      const size_t stored = position < r.stored_attempts.size() ? r.stored_attempts[position] : 0;
      for (size_t idx = stored; idx < t.attempts.size(); ++idx)
        new_attempts.push_back(AttemptRow{r.id, &t, idx});
    }
  }

  commit();  // an open batch of the change-by-change writer is its own transaction
  begin_change();
  Undo undo(*this);
  rows.runs.insert(new_runs, [](Statement& st, int first, const RunRows* r) {
    const Run& run = r->run;
    st.bind_from(first, r->id, BorrowedText{run.pipeline}, run.logical_time.micros(),
                 BorrowedText{to_string(run.trigger)}, BorrowedText{to_string(run.state)},
                 micros(run.start), micros(run.end), params_text(run.params));
  });
  rows.tasks.insert(new_tasks, [](Statement& st, int first, const TaskRow& t) {
    const Resources& r = t.task->requests;
    st.bind_from(first, t.run_id, static_cast<int64_t>(t.position), BorrowedText{t.task->name},
                 BorrowedText{to_string(t.task->state)}, r.cpu_milli, r.memory_bytes,
                 static_cast<int64_t>(r.gpus), static_cast<int64_t>(r.gpu_milli));
  });
  rows.attempts.insert(new_attempts, [](Statement& st, int first, const AttemptRow& a) {
    const Attempt& at = a.task->attempts[a.idx];
    st.bind_from(first, a.run_id, BorrowedText{a.task->name}, static_cast<int64_t>(a.idx),
                 static_cast<int64_t>(at.id), at.start.micros(), micros(at.running), micros(at.end),
                 BorrowedText{to_string(at.state)}, reason_or_null(at.reason));
  });
  // Rows written before (a run in flight at a flush, read back for a rerun): updated.
  for (const RunRows& r : runs) {
    if (!r.stored) continue;
    update_run_.bind_all(BorrowedText{to_string(r.run.state)}, micros(r.run.start),
                         micros(r.run.end), r.id);
    update_run_.step();
    update_run_.reset();
    expect_one_row("updating a run");
    for (size_t position = 0; position < r.run.tasks.size(); ++position) {
      const TaskInstance& t = r.run.tasks[position];
      const Resources& q = t.requests;
      update_task_.bind_all(BorrowedText{to_string(t.state)}, q.cpu_milli, q.memory_bytes,
                            static_cast<int64_t>(q.gpus), static_cast<int64_t>(q.gpu_milli), r.id,
                            BorrowedText{t.name});
      update_task_.step();
      update_task_.reset();
      expect_one_row("updating a task instance");
      const size_t stored = position < r.stored_attempts.size() ? r.stored_attempts[position] : 0;
      for (size_t idx = 0; idx < stored && idx < t.attempts.size(); ++idx) {
        const Attempt& a = t.attempts[idx];
        rows.update_attempt.bind_all(micros(a.running), micros(a.end),
                                     BorrowedText{to_string(a.state)}, reason_or_null(a.reason),
                                     r.id, BorrowedText{t.name}, static_cast<int64_t>(idx));
        rows.update_attempt.step();
        rows.update_attempt.reset();
        expect_one_row("updating an attempt");
      }
    }
  }
  for (const SchedulerEvent& e : events) {
    insert_event_.bind_all(e.at.micros(), BorrowedText{to_string(e.kind)}, BorrowedText{e.pipeline},
                           micros(e.logical_time), BorrowedText{e.task}, BorrowedText{e.message});
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
