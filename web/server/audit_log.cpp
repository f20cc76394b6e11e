#include "web/server/audit_log.hpp"

#include "engine/core/time.hpp"
#include "engine/store/statement.hpp"

namespace gantry::web {

AuditLog::AuditLog(const std::string& db_path, int64_t keep)
    : db_(Database::open(db_path, {.wal = true})), keep_(keep) {
  db_.exec(
      "CREATE TABLE IF NOT EXISTS audit_log(id INTEGER PRIMARY KEY, at_us INTEGER NOT NULL, "
      "token TEXT NOT NULL, role TEXT NOT NULL, method TEXT NOT NULL, route TEXT NOT NULL, "
      "path TEXT NOT NULL, target TEXT NOT NULL, status INTEGER NOT NULL)");
}

int64_t AuditLog::record(const AuditEntry& e) {
  std::lock_guard lock(mu_);
  db_.prepare(
         "INSERT INTO audit_log(at_us, token, role, method, route, path, target, status) "
         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
      .bind_all(e.at_us, e.token, e.role, e.method, e.route, e.path, e.target.dump(), e.status)
      .step();
  const int64_t id = db_.last_insert_rowid();
  // Ids are consecutive (rowid = max + 1, and only the oldest are ever deleted), so the entries
  // at or below id - keep are exactly those beyond the newest `keep`.
  db_.prepare("DELETE FROM audit_log WHERE id <= ?").bind_all(id - keep_).step();
  return id;
}

AuditPage AuditLog::page(int limit, std::optional<int64_t> before) {
  std::lock_guard lock(mu_);
  AuditPage out;
  // One more than asked: whether an older page exists.
  Statement s = db_.prepare(
      "SELECT id, at_us, token, role, method, route, path, target, status FROM audit_log "
      "WHERE id < ? ORDER BY id DESC LIMIT ?");
  s.bind_all(before.value_or(INT64_MAX), static_cast<int64_t>(limit) + 1);
  while (s.step()) {
    if (static_cast<int>(out.entries.size()) == limit) {
      out.next = out.entries.back().id;
      break;
    }
    AuditEntry e;
    e.id = s.column_int64(0);
    e.at_us = s.column_int64(1);
    e.token = s.column_text(2);
    e.role = s.column_text(3);
    e.method = s.column_text(4);
    e.route = s.column_text(5);
    e.path = s.column_text(6);
    e.target = nlohmann::json::parse(s.column_text(7), nullptr, false);
    if (e.target.is_discarded()) e.target = nlohmann::json::object();
    e.status = static_cast<int>(s.column_int64(8));
    out.entries.push_back(std::move(e));
  }
  return out;
}

nlohmann::json to_json(const AuditEntry& e) {
  return {{"id", e.id},         {"at", format_rfc3339(Time::from_micros(e.at_us))},
          {"token", e.token},   {"role", e.role},
          {"method", e.method}, {"route", e.route},
          {"path", e.path},     {"target", e.target},
          {"status", e.status}};
}

}  // namespace gantry::web
