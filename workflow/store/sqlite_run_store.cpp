#include "workflow/store/sqlite_run_store.hpp"

#include <algorithm>
#include <cassert>
#include <nlohmann/json.hpp>

#include "engine/store/store_error.hpp"
#include "engine/store/transaction.hpp"
#include "workflow/store/row_values.hpp"

namespace gantry {

// 0x47616e52 = "GanR".
const DatabaseKind kRunsDatabase{0x47616e52u,
                                 "Gantry runs database",
                                 {{"pipelines", "runs", "task_instances", "attempts", "events"}}};

namespace {

using run_columns::micros;
using run_columns::params_text;

const std::vector<std::string> kSchema = {
    "CREATE TABLE pipelines(name TEXT PRIMARY KEY, namespace TEXT, file TEXT, schedule TEXT,"
    " timezone TEXT);"
    "CREATE TABLE runs(id INTEGER PRIMARY KEY, pipeline TEXT NOT NULL, logical_us INTEGER NOT NULL,"
    " trigger TEXT NOT NULL, state TEXT NOT NULL, start_us INTEGER, end_us INTEGER,"
    " UNIQUE (pipeline, logical_us));"
    "CREATE TABLE task_instances(run_id INTEGER NOT NULL REFERENCES runs(id), position INTEGER,"
    " name TEXT NOT NULL, state TEXT NOT NULL, cpu_milli INTEGER, memory_bytes INTEGER,"
    " gpus INTEGER, gpu_milli INTEGER, PRIMARY KEY (run_id, name)) WITHOUT ROWID;"
    "CREATE TABLE attempts(run_id INTEGER NOT NULL, task TEXT NOT NULL, idx INTEGER NOT NULL,"
    " start_us INTEGER NOT NULL, end_us INTEGER, state TEXT NOT NULL,"
    " PRIMARY KEY (run_id, task, idx)) WITHOUT ROWID;"
    "CREATE TABLE events(seq INTEGER PRIMARY KEY, at_us INTEGER, kind TEXT, pipeline TEXT,"
    " logical_us INTEGER, task TEXT, message TEXT);",
    // 2: what wrote the database, so that a replay never replaces a history (issue 8).
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);",
    // 3: durable attempt ids, unique for good, and when an attempt's work started (issue 9).
    // Attempts written before have neither (NULL).
    "ALTER TABLE attempts ADD COLUMN attempt_id INTEGER;"
    "ALTER TABLE attempts ADD COLUMN running_us INTEGER;"
    "CREATE UNIQUE INDEX attempts_by_id ON attempts(attempt_id);",
    // 4: why an attempt ended unsuccessfully, when its executor said (issue 23: a live API
    // server's refusal, a pod's exit code). NULL for attempts without one, and those before.
    "ALTER TABLE attempts ADD COLUMN reason TEXT;",
    // 5: a run's params (issue #26: trigger with parameters), a JSON object name -> value.
    // NULL for runs without params, and those before.
    "ALTER TABLE runs ADD COLUMN params TEXT;"};

// Counts of the enums of run.hpp, for parse_word.
constexpr int kRunTriggers = 4, kRunStates = 7, kTaskStates = 7, kAttemptStates = 7;

// The inverse of to_string() for the enums of run.hpp: the database stores their words.
template <typename E>
E parse_word(const std::string& path, std::string_view word, int count, const char* what) {
  for (int i = 0; i < count; ++i)
    if (to_string(static_cast<E>(i)) == word) return static_cast<E>(i);
  // Not SQLite's SQLITE_CORRUPT ("database disk image is malformed"): the file is sound, one
  // row holds what Gantry never writes.
  throw StoreError(path, std::string("unknown ") + what + " '" + std::string(word) + "'",
                   StoreError::kGantry);
}

std::optional<Time> time_or_null(const Statement& s, int col) {
  if (s.column_is_null(col)) return std::nullopt;
  return Time::from_micros(s.column_int64(col));
}

// Looks before taking the lock, so that refusing a foreign file leaves nothing beside it (not
// even a .lock file). What counts is the look under the lock (claim()), which follows.
FileLock lock_unless_foreign(const std::string& path) {
  check_replaceable(path, kRunsDatabase);
  return FileLock::acquire(path);
}

}  // namespace

SqliteRunStore::SqliteRunStore(const std::string& path, RunStoreOptions options)
    : lock_(lock_unless_foreign(path)), path_(path), batch_(options.batch < 1 ? 1 : options.batch) {
  // Everything below happens under the lock: no other Gantry writer can be half-way through
  // this database while we look at it, replace it or load it.
  if (options.replay) open_replay(options);
  OpenOptions open;
  open.wal = !options.replay;
  db_ = Database::open(path, open);
  claim(db_, kRunsDatabase);
  if (open.wal) {
    // The WAL is copied into the database every 256 pages (1 MiB; SQLite's default is 4 MiB)
    // and cut back to 1 MiB after that, so the disk a server's history needs stays close to
    // the database's own size: on a small disk the WAL alone used to fill it, and as the
    // database file had never grown, a checkpoint then had no room to happen.
    db_.exec("PRAGMA wal_autocheckpoint=256; PRAGMA journal_size_limit=1048576");
  } else {
    // A replay writes a fresh database that nothing reads until it ends, and one cut short is
    // run again, not continued (open_replay() replaces it): its journal in memory (each page
    // is written once, not into a WAL and again into the database: the year of
    // bench/pipelines_year.sh spent 45 s of system time on that), no fsync, and a 64 MiB page
    // cache for the indexes of millions of rows (with the 2 MiB default every insert read
    // index pages back from the OS). Temporary tables and sorts stay on disk: the summary's
    // GROUP BY over 10 million runs sorted 450 MiB in memory. A replay killed in the middle
    // of a commit may leave its run tables damaged; the next replay still replaces the file,
    // as its meta table, written at the start, says it is a replay.
    db_.exec("PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536");
  }
  db_.migrate(kSchema);
  {
    // Written only when it changes: a database on a full disk still opens (gantry serve then
    // waits for space, and says so, instead of refusing to start).
    const std::string word = options.replay ? "replay" : "history";
    Statement current = db_.prepare("SELECT value FROM meta WHERE key = 'origin'");
    const bool same = current.step() && current.column_text(0) == word;
    current = Statement();
    if (!same) {
      Transaction tx(db_);
      Statement origin =
          db_.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('origin', ?)");
      origin.bind_all(word);
      origin.step();
      origin = Statement();
      tx.commit();
    }
  }
  insert_run_ = db_.prepare(
      "INSERT OR IGNORE INTO runs(pipeline, logical_us, trigger, state, start_us, end_us, params)"
      " VALUES (?, ?, ?, ?, ?, ?, ?)");
  insert_task_ = db_.prepare(
      "INSERT INTO task_instances(run_id, position, name, state, cpu_milli, memory_bytes, gpus,"
      " gpu_milli) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  update_run_ = db_.prepare("UPDATE runs SET state = ?, start_us = ?, end_us = ? WHERE id = ?");
  update_task_ = db_.prepare(
      "UPDATE task_instances SET state = ?, cpu_milli = ?, memory_bytes = ?, gpus = ?,"
      " gpu_milli = ? WHERE run_id = ? AND name = ?");
  // A plain INSERT: an attempt is written once; a second writer or a bug that reuses an index
  // fails on the primary key instead of silently replacing the history.
  insert_attempt_ = db_.prepare(
      "INSERT INTO attempts(run_id, task, idx, attempt_id, start_us, end_us, state)"
      " VALUES (?, ?, ?, ?, ?, NULL, 'running')");
  running_attempt_ =
      db_.prepare("UPDATE attempts SET running_us = ? WHERE run_id = ? AND task = ? AND idx = ?");
  end_attempt_ = db_.prepare(
      "UPDATE attempts SET end_us = ?, state = ?, reason = ? WHERE run_id = ? AND task = ? AND"
      " idx = ?");
  insert_event_ = db_.prepare(
      "INSERT INTO events(at_us, kind, pipeline, logical_us, task, message)"
      " VALUES (?, ?, ?, ?, ?, ?)");
  upsert_pipeline_ = db_.prepare(
      "INSERT INTO pipelines(name, namespace, file, schedule, timezone) VALUES (?, ?, ?, ?, ?)"
      " ON CONFLICT(name) DO UPDATE SET namespace = excluded.namespace, file = excluded.file,"
      " schedule = excluded.schedule, timezone = excluded.timezone");
  find_run_id_ = db_.prepare("SELECT id FROM runs WHERE pipeline = ? AND logical_us = ?");
}

void SqliteRunStore::open_replay(const RunStoreOptions& options) {
  const std::optional<Identity> identity = identify_file(path_, kRunsDatabase);
  if (!identity) {
    remove_sidecars(path_);  // a WAL without its database would be replayed into the new one
    return;
  }
  if (identity->ownership == Ownership::kForeign) {
    check_replaceable(path_, kRunsDatabase);  // throws, saying what the file is
  }
  if (identity->ownership != Ownership::kEmpty && !options.replace) {
    // Only a database an earlier replay wrote goes without asking: it can be made again from
    // the pipeline files. A history (backfills, a server's runs) cannot.
    OpenOptions read;
    read.create = false;
    read.read_only = true;
    Database db = Database::open(path_, read);
    std::string origin;
    int64_t runs = 0;
    if (db.user_version() >= 2) {
      Statement s = db.prepare("SELECT value FROM meta WHERE key = 'origin'");
      if (s.step()) origin = s.column_text(0);
    }
    if (origin != "replay") {
      // Counted only for a history: a replay killed in the middle of a commit may have left
      // its run tables damaged (its journal was in memory), and is replaced all the same.
      Statement s = db.prepare("SELECT count(*) FROM runs");
      if (s.step()) runs = s.column_int64(0);
      s = Statement();
      throw RunHistoryExists(
          path_,
          "holds a run history (" + std::to_string(runs) + " runs" +
              (origin.empty() ? ", written by an older Gantry" : ", written by backfill or serve") +
              ") that a replay would replace",
          StoreError::kGantry);
    }
  }
  remove_database(path_, kRunsDatabase);
}

SqliteRunStore::~SqliteRunStore() {
  try {
    flush();
  } catch (...) {
    // A destructor must not throw; the batch is lost as in a crash, which the design allows.
  }
}

void SqliteRunStore::begin_change() {
  if (!open_) {
    db_.exec("BEGIN IMMEDIATE");
    open_ = true;
  }
  ++changes_;
}

void SqliteRunStore::commit_if_due() {
  if (grouped_ || ++in_batch_ < batch_) return;
  commit();
}

void SqliteRunStore::commit() {
  if (!open_) return;
  try {
    db_.exec("COMMIT");
  } catch (const StoreError&) {
    abort_open();  // a COMMIT that failed (disk full) leaves the transaction open
    throw;
  }
  open_ = false;
  grouped_ = false;
  in_batch_ = 0;
  ++commits_;
  if (commit_hook_) commit_hook_(commits_);
}

void SqliteRunStore::abort_open() noexcept {
  if (open_ && !db_.autocommit()) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {
      // SQLite rolls back when the connection closes; nothing of the change is kept either way.
    }
  }
  open_ = false;
  grouped_ = false;
  in_batch_ = 0;
  ids_.clear();  // may name rows of the transaction just undone
}

void SqliteRunStore::flush() {
  if (!grouped_) commit();
}

void SqliteRunStore::begin_group() {
  commit();
  db_.exec("BEGIN IMMEDIATE");
  open_ = true;
  grouped_ = true;
}

void SqliteRunStore::commit_group() {
  grouped_ = false;
  commit();
}

void SqliteRunStore::rollback_group() noexcept { abort_open(); }

void SqliteRunStore::check_writable() {
  commit();
  Transaction tx(db_);
  db_.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('written', ?)")
      .bind_all(std::to_string(commits_))
      .step();
  tx.commit();
}

void SqliteRunStore::expect_one_row(const char* what) const {
  const int64_t n = db_.changes();
  if (n != 1) {
    throw StoreError(path_,
                     std::string(what) + " changed " + std::to_string(n) +
                         " rows instead of 1 (the database does not hold what this "
                         "process wrote)",
                     StoreError::kConstraint);
  }
}

int64_t SqliteRunStore::run_id(const RunKey& key) const {
  if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
  find_run_id_.bind_all(key.pipeline, key.logical_time.micros());
  const bool found = find_run_id_.step();
  const int64_t id = found ? find_run_id_.column_int64(0) : -1;
  find_run_id_.reset();
  if (!found) {
    throw StoreError(path_,
                     "a change to run " + key.pipeline + " " + format_rfc3339(key.logical_time) +
                         ", which the database does not hold",
                     StoreError::kConstraint);
  }
  ids_.emplace(key, id);
  return id;
}

void SqliteRunStore::save_pipeline(const PipelineSpec& p) {
  begin_change();
  Undo undo(*this);
  upsert_pipeline_.bind_all(p.name, p.namespace_name, p.file,
                            p.schedule ? p.schedule->cron : std::string(),
                            p.schedule ? p.schedule->timezone : std::string());
  upsert_pipeline_.step();
  upsert_pipeline_.reset();
  commit_if_due();
  undo.keep();
}

bool SqliteRunStore::create_run(const Run& run) {
  begin_change();
  Undo undo(*this);
  insert_run_.bind_all(run.pipeline, run.logical_time.micros(), std::string(to_string(run.trigger)),
                       std::string(to_string(run.state)), micros(run.start), micros(run.end),
                       params_text(run.params));
  insert_run_.step();
  insert_run_.reset();
  const bool inserted = db_.changes() == 1;
  if (inserted) {
    const int64_t id = db_.last_insert_rowid();
    ids_[RunKey{run.pipeline, run.logical_time}] = id;
    int64_t position = 0;
    for (const TaskInstance& t : run.tasks) {
      insert_task_.bind_all(id, position++, t.name, std::string(to_string(t.state)),
                            t.requests.cpu_milli, t.requests.memory_bytes,
                            static_cast<int64_t>(t.requests.gpus),
                            static_cast<int64_t>(t.requests.gpu_milli));
      insert_task_.step();
      insert_task_.reset();
    }
  }
  commit_if_due();
  undo.keep();
  return inserted;
}

void SqliteRunStore::update_run(const RunKey& key, RunState state, std::optional<Time> start,
                                std::optional<Time> end) {
  begin_change();
  Undo undo(*this);
  update_run_.bind_all(std::string(to_string(state)), micros(start), micros(end), run_id(key));
  update_run_.step();
  update_run_.reset();
  expect_one_row("updating a run");
  if (is_finished(state)) ids_.erase(key);
  commit_if_due();
  undo.keep();
}

void SqliteRunStore::update_task(const RunKey& key, std::string_view task, TaskState state,
                                 const Resources& r) {
  begin_change();
  Undo undo(*this);
  update_task_.bind_all(std::string(to_string(state)), r.cpu_milli, r.memory_bytes,
                        static_cast<int64_t>(r.gpus), static_cast<int64_t>(r.gpu_milli),
                        run_id(key), std::string(task));
  update_task_.step();
  update_task_.reset();
  expect_one_row("updating a task instance");
  commit_if_due();
  undo.keep();
}

void SqliteRunStore::attempt_started(const RunKey& key, std::string_view task, size_t index,
                                     AttemptId id, Time start) {
  begin_change();
  Undo undo(*this);
  insert_attempt_.bind_all(run_id(key), std::string(task), static_cast<int64_t>(index),
                           static_cast<int64_t>(id), start.micros());
  insert_attempt_.step();
  insert_attempt_.reset();
  commit_if_due();
  undo.keep();
}

void SqliteRunStore::attempt_running(const RunKey& key, std::string_view task, size_t index,
                                     Time at) {
  begin_change();
  Undo undo(*this);
  running_attempt_.bind_all(at.micros(), run_id(key), std::string(task),
                            static_cast<int64_t>(index));
  running_attempt_.step();
  running_attempt_.reset();
  expect_one_row("recording an attempt's running start");
  commit_if_due();
  undo.keep();
}

void SqliteRunStore::attempt_ended(const RunKey& key, std::string_view task, size_t index, Time end,
                                   AttemptState state, std::string_view reason) {
  begin_change();
  Undo undo(*this);
  end_attempt_.bind_all(end.micros(), std::string(to_string(state)),
                        run_columns::reason_or_null(reason), run_id(key), std::string(task),
                        static_cast<int64_t>(index));
  end_attempt_.step();
  end_attempt_.reset();
  expect_one_row("ending an attempt");
  commit_if_due();
  undo.keep();
}

void SqliteRunStore::record_event(const SchedulerEvent& e) {
  begin_change();
  Undo undo(*this);
  insert_event_.bind_all(e.at.micros(), std::string(to_string(e.kind)), e.pipeline,
                         micros(e.logical_time), e.task, e.message);
  insert_event_.step();
  insert_event_.reset();
  commit_if_due();
  undo.keep();
}

std::vector<Run> SqliteRunStore::load_runs(RunSelection which) const {
  if (which == RunSelection::kAll) return load_selected("", [](Statement&) {});
  const std::string queued(to_string(RunState::kQueued)), running(to_string(RunState::kRunning));
  const std::string schedule(to_string(RunTrigger::kSchedule)),
      catchup(to_string(RunTrigger::kCatchup)), skipped(to_string(RunState::kSkipped));
  // UNIQUE (pipeline, logical_us) is an index: the two GROUP BYs read it, not the table.
  return load_selected(
      "SELECT id FROM runs WHERE state IN (?, ?)"
      " UNION SELECT r.id FROM runs r JOIN (SELECT pipeline, max(logical_us) AS lt FROM runs"
      " GROUP BY pipeline) m ON r.pipeline = m.pipeline AND r.logical_us = m.lt"
      " UNION SELECT r.id FROM runs r JOIN (SELECT pipeline, max(logical_us) AS lt FROM runs"
      " WHERE trigger IN (?, ?) OR state = ? GROUP BY pipeline) m"
      " ON r.pipeline = m.pipeline AND r.logical_us = m.lt",
      [&](Statement& st) { st.bind_all(queued, running, schedule, catchup, skipped); });
}

std::optional<Run> SqliteRunStore::load_run(const RunKey& key) const {
  std::vector<Run> runs =
      load_selected("SELECT id FROM runs WHERE pipeline = ? AND logical_us = ?",
                    [&](Statement& st) { st.bind_all(key.pipeline, key.logical_time.micros()); });
  if (runs.empty()) return std::nullopt;
  return std::move(runs.front());
}

std::optional<Run> SqliteRunStore::load_run_before(std::string_view pipeline, Time before) const {
  const std::string name(pipeline);
  std::vector<Run> runs = load_selected(
      "SELECT id FROM runs WHERE pipeline = ? AND logical_us < ? ORDER BY logical_us DESC"
      " LIMIT 1",
      [&](Statement& st) { st.bind_all(name, before.micros()); });
  if (runs.empty()) return std::nullopt;
  return std::move(runs.front());
}

int64_t SqliteRunStore::purge_pipeline(const std::string& pipeline) {
  begin_change();
  Undo undo(*this);
  const int64_t runs = count_runs(pipeline);
  const char* ids = "(SELECT id FROM runs WHERE pipeline = ?)";
  for (const std::string& sql : {std::string("DELETE FROM attempts WHERE run_id IN ") + ids,
                                 std::string("DELETE FROM task_instances WHERE run_id IN ") + ids,
                                 std::string("DELETE FROM runs WHERE pipeline = ?"),
                                 std::string("DELETE FROM events WHERE pipeline = ?"),
                                 std::string("DELETE FROM pipelines WHERE name = ?")}) {
    Statement st = db_.prepare(sql);
    st.bind_all(pipeline);
    st.step();
  }
  std::erase_if(ids_, [&](const auto& entry) { return entry.first.pipeline == pipeline; });
  commit_if_due();
  undo.keep();
  return runs;
}

int64_t SqliteRunStore::count_runs(const std::string& pipeline) const {
  auto& db = const_cast<Database&>(db_);  // reads only; Database has no const prepare
  Statement st = db.prepare("SELECT count(*) FROM runs WHERE pipeline = ?");
  st.bind_all(pipeline);
  return st.step() ? st.column_int64(0) : 0;
}

std::map<std::string, int64_t> SqliteRunStore::count_runs_by_state() const {
  auto& db = const_cast<Database&>(db_);  // reads only; Database has no const prepare
  std::map<std::string, int64_t> out;
  Statement st = db.prepare("SELECT state, count(*) FROM runs GROUP BY state");
  while (st.step()) out[st.column_text(0)] = st.column_int64(1);
  return out;
}

SqliteRunStore::StoredTotals SqliteRunStore::stored_totals() const {
  auto& db = const_cast<Database&>(db_);  // reads only; Database has no const prepare
  StoredTotals out;
  // One count per state word, grouped by pipeline: the UNIQUE (pipeline, logical_us) index
  // gives the rows in pipeline order, so nothing is sorted (GROUP BY pipeline, state sorted
  // every run: 450 MiB for the 10 million of bench/pipelines_year.sh, three times the time).
  std::string sql = "SELECT pipeline";
  for (int i = 0; i < kRunStates; ++i) sql += ", sum(state = ?)";
  Statement runs = db.prepare(sql + " FROM runs GROUP BY pipeline");
  for (int i = 0; i < kRunStates; ++i) runs.bind_text(i + 1, to_string(static_cast<RunState>(i)));
  while (runs.step()) {
    for (int i = 0; i < kRunStates; ++i) {
      if (const int64_t n = runs.column_int64(i + 1); n > 0)
        out.runs[runs.column_text(0)][std::string(to_string(static_cast<RunState>(i)))] = n;
    }
  }
  Statement tasks = db.prepare("SELECT count(*) FROM task_instances");
  if (tasks.step()) out.task_instances = tasks.column_int64(0);
  Statement attempts = db.prepare("SELECT count(*) FROM attempts");
  if (attempts.step()) out.attempts = attempts.column_int64(0);
  return out;
}

AttemptId SqliteRunStore::max_attempt_id() const {
  auto& db = const_cast<Database&>(db_);  // reads only; Database has no const prepare
  Statement st = db.prepare("SELECT max(attempt_id) FROM attempts");  // the UNIQUE index
  if (!st.step() || st.column_is_null(0)) return 0;
  return static_cast<AttemptId>(st.column_int64(0));
}

std::optional<Time> SqliteRunStore::latest_instant() const {
  auto& db = const_cast<Database&>(db_);  // reads only; Database has no const prepare
  Statement st = db.prepare(
      "SELECT max(v) FROM (SELECT max(logical_us) AS v FROM runs UNION ALL"
      " SELECT max(start_us) FROM runs UNION ALL SELECT max(end_us) FROM runs UNION ALL"
      " SELECT max(start_us) FROM attempts UNION ALL SELECT max(running_us) FROM attempts"
      " UNION ALL SELECT max(end_us) FROM attempts UNION ALL SELECT max(at_us) FROM events)");
  if (!st.step() || st.column_is_null(0)) return std::nullopt;
  return Time::from_micros(st.column_int64(0));
}

std::vector<Run> SqliteRunStore::load_selected(const std::string& ids_sql,
                                               const std::function<void(Statement&)>& bind) const {
  auto& db = const_cast<Database&>(db_);  // reads only; Database has no const prepare
  // The three tables are read in one transaction, so they describe one moment. Inside an open
  // batch that is already so; otherwise a read transaction (BEGIN, not IMMEDIATE: it writes
  // nothing) spans them.
  const bool own_tx = db.autocommit();
  if (own_tx) db.exec("BEGIN");
  struct EndRead {
    Database& db;
    bool active;
    ~EndRead() {
      if (active && !db.autocommit()) {
        try {
          db.exec("COMMIT");
        } catch (const StoreError&) {
          // A read transaction has nothing to lose; closing the connection ends it anyway.
        }
      }
    }
  } end_read{db, own_tx};

  // Rows that contradict each other (edited by another program): the file itself is sound, so
  // not SQLite's SQLITE_CORRUPT, whose text ("database disk image is malformed") misleads.
  const auto corrupt = [this](const std::string& what) {
    return StoreError(path_, "inconsistent rows: " + what, StoreError::kGantry);
  };
  std::map<int64_t, Run> runs;
  // Each of the three reads keeps to the selected runs.
  const auto read = [&](const std::string& columns, const char* id_column,
                        const std::string& order) {
    std::string sql = "SELECT " + columns;
    if (!ids_sql.empty()) sql += std::string(" WHERE ") + id_column + " IN (" + ids_sql + ")";
    Statement st = db.prepare(sql + " ORDER BY " + order);
    bind(st);
    return st;
  };
  Statement r = read("id, pipeline, logical_us, trigger, state, start_us, end_us, params FROM runs",
                     "id", "id");
  while (r.step()) {
    Run run;
    run.pipeline = r.column_text(1);
    run.logical_time = Time::from_micros(r.column_int64(2));
    run.trigger = parse_word<RunTrigger>(path_, r.column_text(3), kRunTriggers, "run trigger");
    run.state = parse_word<RunState>(path_, r.column_text(4), kRunStates, "run state");
    run.start = time_or_null(r, 5);
    run.end = time_or_null(r, 6);
    if (!r.column_is_null(7)) {
      const nlohmann::json params = nlohmann::json::parse(r.column_text(7), nullptr, false);
      if (!params.is_object())
        throw corrupt("params of run id " + std::to_string(r.column_int64(0)) +
                      " are not a JSON object");
      for (const auto& [name, value] : params.items()) run.params[name] = value.dump();
    }
    runs.emplace(r.column_int64(0), std::move(run));
  }
  Statement t =
      read("run_id, name, state, cpu_milli, memory_bytes, gpus, gpu_milli FROM task_instances",
           "run_id", "run_id, position");
  while (t.step()) {
    const auto run = runs.find(t.column_int64(0));
    if (run == runs.end())
      throw corrupt("task instance '" + t.column_text(1) + "' of run id " +
                    std::to_string(t.column_int64(0)) + ", which does not exist");
    TaskInstance task;
    task.name = t.column_text(1);
    task.state = parse_word<TaskState>(path_, t.column_text(2), kTaskStates, "task state");
    task.requests =
        Resources{t.column_int64(3), t.column_int64(4), static_cast<int32_t>(t.column_int64(5)),
                  static_cast<int32_t>(t.column_int64(6))};
    run->second.tasks.push_back(std::move(task));
  }
  Statement a = read(
      "run_id, task, idx, start_us, end_us, state, attempt_id, running_us, reason FROM"
      " attempts",
      "run_id", "run_id, task, idx");
  while (a.step()) {
    const auto run = runs.find(a.column_int64(0));
    const std::string task = a.column_text(1);
    if (run == runs.end())
      throw corrupt("attempt of task '" + task + "' of run id " +
                    std::to_string(a.column_int64(0)) + ", which does not exist");
    auto ti = std::find_if(run->second.tasks.begin(), run->second.tasks.end(),
                           [&](const TaskInstance& x) { return x.name == task; });
    if (ti == run->second.tasks.end())
      throw corrupt("attempt of task '" + task + "', which run id " +
                    std::to_string(a.column_int64(0)) + " does not have");
    // Attempts are numbered 0, 1, ... without gaps: the scheduler counts retries by position.
    if (a.column_int64(2) != static_cast<int64_t>(ti->attempts.size()))
      throw corrupt("attempt " + std::to_string(a.column_int64(2)) + " of task '" + task +
                    "' of run id " + std::to_string(a.column_int64(0)) + " follows " +
                    std::to_string(ti->attempts.size()) + " attempts");
    Attempt attempt;
    attempt.start = Time::from_micros(a.column_int64(3));
    attempt.end = time_or_null(a, 4);
    attempt.state =
        parse_word<AttemptState>(path_, a.column_text(5), kAttemptStates, "attempt state");
    attempt.id = a.column_is_null(6) ? 0 : static_cast<AttemptId>(a.column_int64(6));
    attempt.running = time_or_null(a, 7);
    if (!a.column_is_null(8)) attempt.reason = a.column_text(8);
    ti->attempts.push_back(attempt);
  }
  std::vector<Run> out;
  out.reserve(runs.size());
  for (auto& [id, run] : runs) out.push_back(std::move(run));
  return out;
}

}  // namespace gantry
