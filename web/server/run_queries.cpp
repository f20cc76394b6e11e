#include "web/server/run_queries.hpp"

#include <sqlite3.h>

#include <map>

#include "engine/store/statement.hpp"
#include "engine/store/store_error.hpp"

namespace gantry::web {

namespace {

nlohmann::ordered_json time_or_null(Statement& s, int column) {
  if (s.column_is_null(column)) return nullptr;
  return format_rfc3339(Time::from_micros(s.column_int64(column)));
}

nlohmann::ordered_json run_head(Statement& s) {
  // Columns: id, pipeline, logical_us, trigger, state, start_us, end_us, params.
  nlohmann::ordered_json j;
  j["pipeline"] = s.column_text(1);
  j["logicalTime"] = format_rfc3339(Time::from_micros(s.column_int64(2)));
  j["trigger"] = s.column_text(3);
  j["state"] = s.column_text(4);
  j["start"] = time_or_null(s, 5);
  j["end"] = time_or_null(s, 6);
  // As run_json(): "params" only for a run with params.
  if (!s.column_is_null(7)) {
    nlohmann::ordered_json params = nlohmann::ordered_json::parse(s.column_text(7), nullptr, false);
    if (params.is_object()) j["params"] = std::move(params);
  }
  j["tasks"] = nlohmann::ordered_json::array();
  return j;
}

std::string id_list(const std::vector<int64_t>& ids) {
  std::string out;
  for (int64_t id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

constexpr const char* kRunColumns =
    "SELECT id, pipeline, logical_us, trigger, state, start_us, end_us, params FROM runs ";

}  // namespace

RunQueries::RunQueries(std::string path) : path_(std::move(path)) {}
RunQueries::~RunQueries() = default;

std::unique_ptr<Database> RunQueries::acquire() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<Database> db = std::move(idle_.back());
      idle_.pop_back();
      return db;
    }
  }
  return std::make_unique<Database>(Database::open(path_, {.create = false, .read_only = true}));
}

template <typename F>
auto RunQueries::with_db(F&& fn) -> decltype(fn(std::declval<Database&>())) {
  // A read that fails with an I/O error is tried once more on a fresh connection before the
  // error goes up; the connection that failed is closed, never returned to the pool. (The
  // SQLITE_IOERR_SHORT_READ the web e2e met came from Database::open() dropping the process's
  // locks, fixed there; this stays for a disk's own hiccups.)
  for (int attempt = 0;; ++attempt) {
    std::unique_ptr<Database> db = acquire();
    try {
      auto out = fn(*db);
      release(std::move(db));
      return out;
    } catch (const StoreError& e) {
      if (attempt > 0 || (e.code() & 0xff) != SQLITE_IOERR) throw;
    }
  }
}

void RunQueries::release(std::unique_ptr<Database> db) {
  std::lock_guard lock(mu_);
  if (idle_.size() < 16) idle_.push_back(std::move(db));
}

void RunQueries::add_tasks(Database& db, const std::vector<int64_t>& ids,
                           std::vector<nlohmann::ordered_json*>& runs) {
  if (ids.empty()) return;
  std::map<int64_t, nlohmann::ordered_json*> by_id;
  for (size_t i = 0; i < ids.size(); ++i) by_id[ids[i]] = runs[i];
  // (run id, task name) -> the task's JSON, for its attempts.
  std::map<std::pair<int64_t, std::string>, nlohmann::ordered_json*> tasks;
  {
    Statement t = db.prepare("SELECT run_id, name, state FROM task_instances WHERE run_id IN (" +
                             id_list(ids) + ") ORDER BY run_id, position");
    while (t.step()) {
      nlohmann::ordered_json task;
      task["name"] = t.column_text(1);
      task["state"] = t.column_text(2);
      task["attempts"] = nlohmann::ordered_json::array();
      auto& list = (*by_id[t.column_int64(0)])["tasks"];
      list.push_back(std::move(task));
    }
  }
  for (const auto& [id, run] : by_id)
    for (auto& task : (*run)["tasks"]) tasks[{id, task["name"].get<std::string>()}] = &task;
  Statement a = db.prepare(
      "SELECT run_id, task, start_us, running_us, end_us, state, reason FROM attempts WHERE"
      " run_id IN (" +
      id_list(ids) + ") ORDER BY run_id, task, idx");
  while (a.step()) {
    const auto it = tasks.find({a.column_int64(0), a.column_text(1)});
    if (it == tasks.end()) continue;
    nlohmann::ordered_json attempt;
    attempt["start"] = time_or_null(a, 2);
    // As run_json(): "running" only when the work started after the attempt was asked for.
    if (!a.column_is_null(3) && a.column_int64(3) != a.column_int64(2))
      attempt["running"] = time_or_null(a, 3);
    attempt["end"] = time_or_null(a, 4);
    attempt["state"] = a.column_text(5);
    // As run_json(): "reason" only when the executor gave one.
    if (!a.column_is_null(6) && !a.column_text(6).empty()) attempt["reason"] = a.column_text(6);
    (*it->second)["attempts"].push_back(std::move(attempt));
  }
}

RunPage RunQueries::page(const RunPageQuery& q) {
  return with_db([&](Database& db) {
    RunPage out;
    std::string sql = std::string(kRunColumns) + "WHERE pipeline = ?";
    if (q.state) sql += " AND state = ?";
    if (q.from) sql += " AND logical_us >= ?";
    if (q.to) sql += " AND logical_us <= ?";
    if (q.after) sql += " AND logical_us < ?";
    sql += " ORDER BY logical_us DESC LIMIT ?";
    Statement s = db.prepare(sql);
    int i = 1;
    s.bind(i++, q.pipeline);
    if (q.state) s.bind(i++, *q.state);
    if (q.from) s.bind(i++, q.from->micros());
    if (q.to) s.bind(i++, q.to->micros());
    if (q.after) s.bind(i++, *q.after);
    s.bind(i++, static_cast<int64_t>(q.limit) + 1);  // one more tells whether a next page exists
    std::vector<int64_t> ids;
    std::vector<int64_t> logical;
    while (s.step()) {
      if (static_cast<int>(ids.size()) == q.limit) {
        out.next = logical.back();
        break;
      }
      ids.push_back(s.column_int64(0));
      logical.push_back(s.column_int64(2));
      out.runs.push_back(run_head(s));
    }
    std::vector<nlohmann::ordered_json*> runs;
    for (auto& r : out.runs) runs.push_back(&r);
    add_tasks(db, ids, runs);
    return out;
  });
}

nlohmann::ordered_json RunQueries::run(const std::string& pipeline, Time logical_time) {
  return with_db([&](Database& db) {
    nlohmann::ordered_json out;
    Statement s = db.prepare(std::string(kRunColumns) + "WHERE pipeline = ? AND logical_us = ?");
    s.bind_all(pipeline, logical_time.micros());
    if (s.step()) {
      const int64_t id = s.column_int64(0);
      out = run_head(s);
      std::vector<nlohmann::ordered_json*> runs{&out};
      add_tasks(db, {id}, runs);
    }
    return out;
  });
}

std::optional<std::pair<Time, std::string>> RunQueries::last_run(const std::string& pipeline) {
  return with_db([&](Database& db) {
    std::optional<std::pair<Time, std::string>> out;
    Statement s = db.prepare(
        "SELECT logical_us, state FROM runs WHERE pipeline = ? ORDER BY logical_us DESC LIMIT 1");
    s.bind_all(pipeline);
    if (s.step()) out = std::make_pair(Time::from_micros(s.column_int64(0)), s.column_text(1));
    return out;
  });
}

}  // namespace gantry::web
