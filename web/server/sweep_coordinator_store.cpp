#include "web/server/sweep_coordinator_store.hpp"

#include <bit>

#include "engine/store/transaction.hpp"

namespace gantry::web {

namespace {

// Migration steps of these tables; append, never edit (see the header).
const std::vector<std::string> kSteps = {
    "CREATE TABLE distributed_sweeps(id TEXT PRIMARY KEY, number INTEGER NOT NULL, "
    "name TEXT NOT NULL, root TEXT NOT NULL, sweep_document TEXT NOT NULL, "
    "shards INTEGER NOT NULL, runs INTEGER NOT NULL, seeds INTEGER NOT NULL, "
    "metrics INTEGER NOT NULL, state TEXT NOT NULL, created_us INTEGER NOT NULL, "
    "ended_us INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE distributed_sweep_documents(sweep TEXT NOT NULL, path TEXT NOT NULL, "
    "text TEXT NOT NULL, PRIMARY KEY(sweep, path));"
    "CREATE TABLE distributed_sweep_runs(sweep TEXT NOT NULL, run INTEGER NOT NULL, "
    "seed INTEGER NOT NULL, fingerprint INTEGER NOT NULL, metrics TEXT NOT NULL, "
    "PRIMARY KEY(sweep, run)) WITHOUT ROWID;"
    "CREATE TABLE distributed_sweep_failures(sweep TEXT NOT NULL, shard INTEGER NOT NULL, "
    "at_us INTEGER NOT NULL, message TEXT NOT NULL)"};

constexpr const char* kComponent = "distributed_sweeps";

void migrate(Database& db) {
  db.exec(
      "CREATE TABLE IF NOT EXISTS schema_steps(component TEXT NOT NULL, step INTEGER NOT NULL, "
      "PRIMARY KEY(component, step))");
  for (size_t i = 0; i < kSteps.size(); ++i) {
    Transaction tx(db);
    // Looked at inside the write lock: another connection may have applied it meanwhile.
    Statement applied = db.prepare("SELECT 1 FROM schema_steps WHERE component = ? AND step = ?");
    applied.bind_all(kComponent, static_cast<int64_t>(i));
    const bool done = applied.step();
    applied = Statement();
    if (done) continue;
    db.exec(kSteps[i]);
    db.prepare("INSERT INTO schema_steps(component, step) VALUES (?, ?)")
        .bind_all(kComponent, static_cast<int64_t>(i))
        .step();
    tx.commit();
  }
}

// Metrics as a JSON array: exact (shortest round-trip form) and NaN-safe (null).
std::string metrics_text(const std::vector<double>& metrics) {
  return run_json({.metrics = metrics})["metrics"].dump();
}

std::vector<double> metrics_from(const std::string& text) {
  return run_from_json({{"run", 0},
                        {"seed", 0},
                        {"fingerprint", 0},
                        {"metrics", nlohmann::json::parse(text)}},
                       "stored run")
      .metrics;
}

}  // namespace

SweepCoordinatorStore::SweepCoordinatorStore(const std::string& db_path)
    : db_(Database::open(db_path, {.wal = true})) {
  migrate(db_);
  insert_run_ = db_.prepare(
      "INSERT INTO distributed_sweep_runs(sweep, run, seed, fingerprint, metrics) "
      "VALUES (?, ?, ?, ?, ?)");
}

void SweepCoordinatorStore::insert_sweep(const StoredSweep& s) {
  Transaction tx(db_);
  db_.prepare(
         "INSERT INTO distributed_sweeps(id, number, name, root, sweep_document, shards, runs, "
         "seeds, metrics, state, created_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(s.id, s.number, s.name, s.documents.root, s.documents.sweep,
                static_cast<int64_t>(s.shards), static_cast<int64_t>(s.runs),
                static_cast<int64_t>(s.seeds), static_cast<int64_t>(s.metrics), s.state,
                s.created_us)
      .step();
  Statement doc =
      db_.prepare("INSERT INTO distributed_sweep_documents(sweep, path, text) VALUES (?, ?, ?)");
  for (const auto& [path, text] : s.documents.files) {
    doc.reset();
    doc.bind_all(s.id, path, text);
    doc.step();
  }
  doc = Statement();
  tx.commit();
}

void SweepCoordinatorStore::set_state(const std::string& id, const std::string& state,
                                      int64_t ended_us) {
  db_.prepare("UPDATE distributed_sweeps SET state = ?, ended_us = ? WHERE id = ?")
      .bind_all(state, ended_us, id)
      .step();
}

void SweepCoordinatorStore::begin() { db_.exec("BEGIN IMMEDIATE"); }

void SweepCoordinatorStore::insert_run(const std::string& id, const PostedRun& r) {
  try {
    insert_run_.reset();
    insert_run_.bind_all(id, static_cast<int64_t>(r.run), std::bit_cast<int64_t>(r.seed),
                         std::bit_cast<int64_t>(r.fingerprint), metrics_text(r.metrics));
    insert_run_.step();
    insert_run_.reset();
  } catch (...) {
    insert_run_.reset();
    if (!db_.autocommit()) db_.exec("ROLLBACK");
    throw;
  }
}

void SweepCoordinatorStore::commit() {
  try {
    db_.exec("COMMIT");
  } catch (...) {
    if (!db_.autocommit()) db_.exec("ROLLBACK");
    throw;
  }
}

void SweepCoordinatorStore::insert_failure(const std::string& id, const ShardFailure& f) {
  db_.prepare(
         "INSERT INTO distributed_sweep_failures(sweep, shard, at_us, message) VALUES (?, ?, ?, ?)")
      .bind_all(id, static_cast<int64_t>(f.shard), f.at_us, f.message)
      .step();
}

std::vector<StoredSweep> SweepCoordinatorStore::sweeps() {
  std::vector<StoredSweep> out;
  Statement s = db_.prepare(
      "SELECT id, number, name, root, sweep_document, shards, runs, seeds, metrics, state, "
      "created_us, ended_us FROM distributed_sweeps ORDER BY number");
  while (s.step()) {
    StoredSweep w;
    w.id = s.column_text(0);
    w.number = s.column_int64(1);
    w.name = s.column_text(2);
    w.documents.root = s.column_text(3);
    w.documents.sweep = s.column_text(4);
    w.shards = static_cast<size_t>(s.column_int64(5));
    w.runs = static_cast<size_t>(s.column_int64(6));
    w.seeds = static_cast<int>(s.column_int64(7));
    w.metrics = static_cast<size_t>(s.column_int64(8));
    w.state = s.column_text(9);
    w.created_us = s.column_int64(10);
    w.ended_us = s.column_int64(11);
    out.push_back(std::move(w));
  }
  s = Statement();
  Statement docs = db_.prepare(
      "SELECT path, text FROM distributed_sweep_documents WHERE sweep = ? ORDER BY path");
  for (StoredSweep& w : out) {
    docs.reset();
    docs.bind_all(w.id);
    while (docs.step()) w.documents.files[docs.column_text(0)] = docs.column_text(1);
  }
  return out;
}

std::vector<PostedRun> SweepCoordinatorStore::runs(const std::string& id) {
  std::vector<PostedRun> out;
  Statement s = db_.prepare(
      "SELECT run, seed, fingerprint, metrics FROM distributed_sweep_runs WHERE sweep = ? "
      "ORDER BY run");
  s.bind_all(id);
  while (s.step())
    out.push_back({static_cast<size_t>(s.column_int64(0)),
                   std::bit_cast<uint64_t>(s.column_int64(1)),
                   std::bit_cast<uint64_t>(s.column_int64(2)), metrics_from(s.column_text(3))});
  return out;
}

std::vector<ShardFailure> SweepCoordinatorStore::failures(const std::string& id) {
  std::vector<ShardFailure> out;
  Statement s = db_.prepare(
      "SELECT shard, at_us, message FROM distributed_sweep_failures WHERE sweep = ? ORDER BY "
      "rowid");
  s.bind_all(id);
  while (s.step())
    out.push_back({static_cast<size_t>(s.column_int64(0)), s.column_int64(1), s.column_text(2)});
  return out;
}

}  // namespace gantry::web
