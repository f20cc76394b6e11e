#include "web/server/pipeline_catalog.hpp"

#include <optional>

#include "engine/store/statement.hpp"
#include "engine/store/transaction.hpp"

namespace gantry::web {

namespace {

CatalogEntry read_entry(Statement& s) {
  return CatalogEntry{s.column_text(0), s.column_text(1), s.column_text(2), s.column_int64(3) != 0,
                      s.column_int64(4)};
}

}  // namespace

PipelineCatalog::PipelineCatalog(const std::string& db_path)
    : own_(Database::open(db_path, {.wal = true})), db_(*own_) {
  create_table();
}

PipelineCatalog::PipelineCatalog(Database& shared) : db_(shared) { create_table(); }

void PipelineCatalog::create_table() {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS server_documents(kind TEXT NOT NULL, name TEXT NOT NULL, "
      "yaml TEXT NOT NULL, paused INTEGER NOT NULL DEFAULT 0, updated_us INTEGER NOT NULL, "
      "PRIMARY KEY (kind, name))");
}

bool PipelineCatalog::put(const std::string& kind, const std::string& name, const std::string& yaml,
                          int64_t now_us) {
  // Its own transaction, unless one is open (a request's): then it joins it.
  std::optional<Transaction> tx;
  if (db_.autocommit()) tx.emplace(db_);
  bool existed = false;
  {
    Statement s = db_.prepare("SELECT 1 FROM server_documents WHERE kind = ? AND name = ?");
    s.bind_all(kind, name);
    existed = s.step();
  }
  db_.prepare(
         "INSERT INTO server_documents(kind, name, yaml, updated_us) VALUES (?, ?, ?, ?) "
         "ON CONFLICT (kind, name) DO UPDATE SET yaml = excluded.yaml, updated_us = "
         "excluded.updated_us")
      .bind_all(kind, name, yaml, now_us)
      .step();
  if (tx) tx->commit();
  return !existed;
}

bool PipelineCatalog::remove(const std::string& kind, const std::string& name) {
  db_.prepare("DELETE FROM server_documents WHERE kind = ? AND name = ?")
      .bind_all(kind, name)
      .step();
  return db_.changes() > 0;
}

bool PipelineCatalog::set_paused(const std::string& name, bool paused) {
  db_.prepare("UPDATE server_documents SET paused = ? WHERE kind = 'Pipeline' AND name = ?")
      .bind_all(paused ? 1 : 0, name)
      .step();
  return db_.changes() > 0;
}

std::optional<CatalogEntry> PipelineCatalog::find(const std::string& kind,
                                                  const std::string& name) {
  Statement s = db_.prepare(
      "SELECT kind, name, yaml, paused, updated_us FROM server_documents WHERE kind = ? AND name = "
      "?");
  s.bind_all(kind, name);
  if (!s.step()) return std::nullopt;
  return read_entry(s);
}

std::vector<CatalogEntry> PipelineCatalog::all() {
  std::vector<CatalogEntry> out;
  Statement s = db_.prepare(
      "SELECT kind, name, yaml, paused, updated_us FROM server_documents "
      "ORDER BY kind = 'Pipeline', name");
  while (s.step()) out.push_back(read_entry(s));
  return out;
}

}  // namespace gantry::web
