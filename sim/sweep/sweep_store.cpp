#include "sim/sweep/sweep_store.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "engine/core/errors.hpp"
#include "engine/store/transaction.hpp"

namespace gantry {

// 0x47616e57 = "GanW" (sWeep).
const DatabaseKind kSweepDatabase{0x47616e57u, "Gantry sweep database", {}};

namespace {

std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

Database open_claimed(const std::string& path, bool resume) {
  if (!resume) remove_database(path, kSweepDatabase);
  Database db = Database::open(path, {.wal = true});
  claim(db, kSweepDatabase);
  return db;
}

std::string schema(const SweepSpec& sweep) {
  std::string columns = "point INTEGER NOT NULL, seed_index INTEGER NOT NULL, seed INTEGER";
  for (const SweepAxis& a : sweep.axes) columns += ", " + quoted(a.name) + " TEXT";
  columns += ", fingerprint TEXT";
  for (const std::string& m : sweep.metrics) columns += ", " + quoted(m) + " REAL";
  return fmt::format(
      "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE runs({}, PRIMARY KEY(point, seed_index))",
      columns);
}

std::string meta_value(Database& db, const std::string& key) {
  Statement s = db.prepare("SELECT value FROM meta WHERE key = ?");
  s.bind_all(key);
  return s.step() ? s.column_text(0) : std::string();
}

}  // namespace

SweepStore::SweepStore(const std::string& path, const SweepSpec& sweep,
                       const std::string& sweep_text, const std::string& base_text, bool resume)
    : path_(path), sweep_(&sweep), db_(open_claimed(path, resume)) {
  const bool fresh = db_.user_version() == 0;
  db_.migrate({schema(sweep)});
  if (fresh) {
    nlohmann::ordered_json axes = nlohmann::ordered_json::array();
    for (const SweepAxis& a : sweep.axes) axes.push_back({{"name", a.name}, {"path", a.path_text}});
    Transaction tx(db_);
    Statement put = db_.prepare("INSERT INTO meta(key, value) VALUES (?, ?)");
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{
             {"name", sweep.name},
             {"sweep_file", sweep.file},
             {"sweep_text", sweep_text},
             {"base_file", sweep.base},
             {"base_text", base_text},
             {"seeds", std::to_string(sweep.seeds)},
             {"axes", axes.dump()},
             {"metrics", nlohmann::json(sweep.metrics).dump()}}) {
      put.reset().bind_all(key, value);
      put.step();
    }
    tx.commit();
    return;
  }
  if (meta_value(db_, "sweep_text") != sweep_text)
    throw GantryError(fmt::format(
        "--resume: {} holds runs of another version of {} (the sweep file changed since); "
        "run without --resume to start over",
        path, sweep.file));
  if (meta_value(db_, "base_text") != base_text)
    throw GantryError(fmt::format(
        "--resume: {} holds runs of another version of {} (the base scenario changed since); "
        "run without --resume to start over",
        path, sweep.base));
}

std::vector<SweepRunResult> SweepStore::runs() {
  std::string columns = "point, seed_index, seed, fingerprint";
  for (const std::string& m : sweep_->metrics) columns += ", " + quoted(m);
  Statement s = db_.prepare("SELECT " + columns + " FROM runs ORDER BY point, seed_index");
  std::vector<SweepRunResult> out;
  while (s.step()) {
    SweepRunResult r{.point = static_cast<size_t>(s.column_int64(0)),
                     .seed_index = static_cast<int>(s.column_int64(1)),
                     .seed = static_cast<uint64_t>(s.column_int64(2)),
                     .fingerprint = std::stoull(s.column_text(3), nullptr, 16)};
    for (size_t m = 0; m < sweep_->metrics.size(); ++m) {
      const int c = static_cast<int>(4 + m);
      r.metrics.push_back(s.column_is_null(c) ? std::numeric_limits<double>::quiet_NaN()
                                              : s.column_double(c));
    }
    out.push_back(std::move(r));
  }
  return out;
}

void SweepStore::record(const SweepRunResult& run) {
  std::string columns = "point, seed_index, seed";
  std::string marks = "?, ?, ?";
  for (const SweepAxis& a : sweep_->axes) {
    columns += ", " + quoted(a.name);
    marks += ", ?";
  }
  columns += ", fingerprint";
  marks += ", ?";
  for (const std::string& m : sweep_->metrics) {
    columns += ", " + quoted(m);
    marks += ", ?";
  }
  Transaction tx(db_);
  Statement s = db_.prepare(fmt::format("INSERT INTO runs({}) VALUES ({})", columns, marks));
  int i = 0;
  s.bind(++i, static_cast<int64_t>(run.point));
  s.bind(++i, run.seed_index);
  s.bind(++i, static_cast<int64_t>(run.seed));
  for (const SweepValue& v : sweep_->points[run.point].values) s.bind_text(++i, v.text);
  s.bind_text(++i, fmt::format("{:016x}", run.fingerprint));
  for (double m : run.metrics) s.bind_double(++i, m);
  s.step();
  tx.commit();
  ++commits_;
  if (commit_hook_) commit_hook_(commits_);
}

}  // namespace gantry
