#pragma once
// The pipelines and pools a server was given, as submitted: the YAML text of each document and
// whether a pipeline's schedule is paused. A restarted `gantry serve` reloads them from here
// before recovering its runs, so a pipeline applied through the API survives kill -9 like its
// runs do.
//
//   server_documents(kind TEXT, name TEXT, yaml TEXT, paused INTEGER, updated_us INTEGER,
//                    PRIMARY KEY (kind, name))
//
// The table lives in the runs database. On its own connection every call is one transaction;
// on the runs store's (SqliteRunStore::database(), gantry serve) a call inside an open
// transaction joins it, so that a request's catalog and run changes commit or roll back
// together. Thread safety: the event loop's thread only.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/store/database.hpp"

namespace gantry::web {

struct CatalogEntry {
  std::string kind;  // "Pipeline" or "Pool"
  std::string name;
  std::string yaml;  // the document as submitted (one YAML document)
  bool paused = false;
  int64_t updated_us = 0;
};

class PipelineCatalog {
 public:
  // Opens the database at `db_path` and creates the table if needed. Throws StoreError.
  explicit PipelineCatalog(const std::string& db_path);
  // The same on a connection it does not own (which must outlive it).
  explicit PipelineCatalog(Database& shared);

  // Inserts or replaces (kind, name); a replaced pipeline keeps its paused flag. Returns true
  // when it was new.
  bool put(const std::string& kind, const std::string& name, const std::string& yaml,
           int64_t now_us);
  bool remove(const std::string& kind, const std::string& name);
  bool set_paused(const std::string& name, bool paused);
  std::optional<CatalogEntry> find(const std::string& kind, const std::string& name);
  // Pools first, then pipelines, each by name: the order to load them in.
  std::vector<CatalogEntry> all();

 private:
  void create_table();

  std::optional<Database> own_;
  Database& db_;
};

}  // namespace gantry::web
