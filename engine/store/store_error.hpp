#pragma once
// StoreError: what every failure of the SQLite store throws.
//
// Why the store throws, unlike the rest of engine/ (core/status.hpp): the store is an I/O
// boundary. Its failures (disk full, unwritable path, a locked database, a corrupt file, SQL
// that does not prepare) are not part of the model and no caller inside the event loop can
// repair them; they abort the run or the request and reach the user. They travel as a
// GantryError so that tools/ and web/ turn them into messages and exit codes in the one place
// they already do for the other boundaries (core/errors.hpp).
//
// Every StoreError names the database file: a user with three databases open (a results
// database, a runs database, a scenario's trace) must know which one failed.

#include <string>

#include "engine/core/errors.hpp"

namespace gantry {

class StoreError : public GantryError {
 public:
  // `path` is the database file as the user named it (":memory:" for a private in-memory
  // database); `message` says what failed (SQLite's own message, or ours); `code` is the
  // SQLite result code (extended when available); `sql` the statement text, kept whole here
  // and truncated in what().
  // what() is "<path>: <message> [sqlite <code name> (<code>)] in: <sql, at most
  // kMaxSqlInMessage characters>" and omits the "in:" part when `sql` is empty, and the
  // [sqlite ...] part when `code` is kGantry.
  StoreError(std::string path, std::string message, int code, std::string sql = {});

  const std::string& path() const { return path_; }
  int code() const { return code_; }
  const std::string& sql() const { return sql_; }
  const std::string& detail() const { return detail_; }

  static constexpr std::size_t kMaxSqlInMessage = 200;
  // The code of a failure that Gantry itself decided, or that the operating system reported,
  // without any SQLite call failing: a refusal to touch a foreign file, a held lock, a file
  // that cannot be removed. (SQLITE_OK, which no SQLite failure carries.)
  static constexpr int kGantry = 0;
  // SQLite's result codes that code outside engine/store reports itself (kept equal to
  // SQLITE_CORRUPT and SQLITE_CONSTRAINT; store_error.cpp checks), so no other folder includes
  // sqlite3.h.
  static constexpr int kCorrupt = 11;
  static constexpr int kFull = 13;  // SQLITE_FULL: the disk (or the database's size limit)
  static constexpr int kConstraint = 19;

 private:
  std::string path_;
  int code_;
  std::string sql_;
  std::string detail_;
};

}  // namespace gantry
