#include "engine/store/store_error.hpp"

#include <sqlite3.h>

namespace gantry {

static_assert(StoreError::kCorrupt == SQLITE_CORRUPT && StoreError::kFull == SQLITE_FULL &&
              StoreError::kConstraint == SQLITE_CONSTRAINT);

namespace {
std::string compose(const std::string& path, const std::string& message, int code,
                    const std::string& sql) {
  std::string out = (path.empty() ? std::string("<database>") : path) + ": " + message;
  if (code != StoreError::kGantry)
    out += std::string(" [sqlite ") + sqlite3_errstr(code) + " (" + std::to_string(code) + ")]";
  if (!sql.empty()) {
    out += " in: ";
    if (sql.size() <= StoreError::kMaxSqlInMessage) {
      out += sql;
    } else {
      out.append(sql, 0, StoreError::kMaxSqlInMessage);
      out += "...";
    }
  }
  return out;
}
}  // namespace

StoreError::StoreError(std::string path, std::string message, int code, std::string sql)
    : GantryError(compose(path, message, code, sql)),
      path_(std::move(path)),
      code_(code),
      sql_(std::move(sql)),
      detail_(std::move(message)) {}

}  // namespace gantry
