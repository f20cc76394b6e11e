#pragma once
// The audit log of `gantry serve`: who did what, when, and how it ended. ApiServer records one
// entry for every request to a route that changes state (any method but GET, or a route marked
// `writes`) made with a person's token (admin, editor, viewer), whatever its answer: a success,
// a refusal for the token's role (403) or a handler's error. Not recorded: requests without a
// valid token (401: nobody to name, and anyone could fill the log), GET requests, and sweep
// workers' posts (a machine's shard traffic, recorded in the sweep's own tables).
//
// Storage: table audit_log in the server's database, on this log's own connection (WAL), like
// TokenStore. Retention: the newest `keep` entries (default 100,000, some 15 MB): each insert
// deletes the entries `keep` and more behind it, a range of the primary key, so the table never
// grows past `keep` rows and nothing else needs cleaning. Pages are read newest first by id.
//
// Thread-safe: every call takes the log's mutex. Throws StoreError naming the database file
// when it cannot be opened or written.

#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/store/database.hpp"

namespace gantry::web {

struct AuditEntry {
  int64_t id = 0;     // set by the log, increasing
  int64_t at_us = 0;  // wall clock, microseconds since the Unix epoch
  std::string token;  // the token's name
  std::string role;   // admin, editor or viewer
  std::string method;
  std::string route;  // the route's pattern: "/api/v1/pipelines/{name}/trigger"
  std::string path;   // the request's path: "/api/v1/pipelines/nightly/trigger"
  nlohmann::json target = nlohmann::json::object();  // the route's parameters: {"name":"nightly"}
  int status = 0;                                    // the answer's HTTP status
};

struct AuditPage {
  std::vector<AuditEntry> entries;  // newest first
  std::optional<int64_t> next;      // `before` for the next (older) page; nullopt at the end
};

class AuditLog {
 public:
  explicit AuditLog(const std::string& db_path, int64_t keep = 100'000);

  // Appends `entry` (its id is ignored and assigned) and drops what falls out of retention.
  // Returns the new entry's id.
  int64_t record(const AuditEntry& entry);
  // Up to `limit` entries older than `before` (an id; nullopt: from the newest).
  AuditPage page(int limit, std::optional<int64_t> before);

 private:
  std::mutex mu_;
  Database db_;
  int64_t keep_;
};

nlohmann::json to_json(const AuditEntry& entry);

}  // namespace gantry::web
