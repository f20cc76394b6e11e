#include "engine/store/database.hpp"

#include <sqlite3.h>

#include <cassert>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <utility>

#include "engine/store/transaction.hpp"

namespace gantry {

void check_database_file(const std::string& path) {
  if (path.empty() || path == ":memory:") return;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);  // follows symlinks: judge the target
  if (status.type() == fs::file_type::not_found) return;
  if (ec) throw StoreError(path, "cannot inspect: " + ec.message(), StoreError::kGantry);
  if (status.type() != fs::file_type::regular) {
    // SQLite would open a device node or write into a FIFO; a directory fails later with a
    // vaguer message.
    throw StoreError(path, "exists and is not a regular file; Gantry does not touch it",
                     StoreError::kGantry);
  }
}

namespace {

// The header check of a non-empty file, through the file handle SQLite opened itself. Opening
// and closing the file by other means would drop every POSIX advisory lock this process holds
// on it (closing any descriptor of a file does), including those of other connections: the
// next connection to close would think itself the last, checkpoint and remove the WAL under
// the others' feet (SQLite's "How To Corrupt", 2.2; seen as SQLITE_IOERR_SHORT_READ in the web
// e2e whenever the run queries opened a new connection). A database that is not SQLite's is
// refused before SQLite reads or writes a byte of it.
void check_header(sqlite3* db, const std::string& path) {
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr)
    return;  // in memory, or not opened yet: nothing on disk to judge
  sqlite3_int64 size = 0;
  if (file->pMethods->xFileSize(file, &size) != SQLITE_OK || size == 0) return;
  // SQLite's file header: the 16 bytes "SQLite format 3\0" (https://sqlite.org/fileformat.html).
  static constexpr char kMagic[16] = "SQLite format 3";
  char header[16] = {};
  const int rc = file->pMethods->xRead(file, header, sizeof header, 0);
  if (size < 16 || (rc != SQLITE_OK && rc != SQLITE_IOERR_SHORT_READ) ||
      std::memcmp(header, kMagic, sizeof kMagic) != 0) {
    sqlite3_close(db);
    throw StoreError(path,
                     "exists and is not an SQLite database (it does not start with SQLite's "
                     "header); Gantry does not touch it",
                     StoreError::kGantry);
  }
}

}  // namespace

Database Database::open(const std::string& path, const OpenOptions& options) {
  if (options.wal && options.fast) {
    throw StoreError(path, "cannot open: options wal and fast are exclusive", SQLITE_MISUSE);
  }
  if (options.read_only && (options.wal || options.fast || options.create)) {
    throw StoreError(path, "cannot open: read_only excludes create, wal and fast", SQLITE_MISUSE);
  }
  check_database_file(path);
  // NOMUTEX: one thread per connection (see the header), so SQLite's own mutex is waste.
  int flags = SQLITE_OPEN_NOMUTEX;
  flags |= options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (options.create) flags |= SQLITE_OPEN_CREATE;
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    // Even on failure SQLite usually hands back a handle carrying the message; free it.
    std::string message = raw != nullptr ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    const int code = raw != nullptr ? sqlite3_extended_errcode(raw) : rc;
    sqlite3_close(raw);
    throw StoreError(path, "cannot open: " + message, code);
  }
  check_header(raw, path);
  sqlite3_extended_result_codes(raw, 1);
  Database db(raw, path);

  const int64_t timeout_ms = options.busy_timeout.micros() / 1000;
  sqlite3_busy_timeout(raw, static_cast<int>(timeout_ms > INT32_MAX ? INT32_MAX : timeout_ms));
  if (options.wal) {
    // journal_mode answers with the mode it got; a file system without shared memory keeps
    // the old mode, which must not pass silently for the orchestrator's durability.
    Statement mode = db.prepare("PRAGMA journal_mode=WAL");
    if (!mode.step() || mode.column_text(0) != "wal") {
      throw StoreError(path, "cannot open: WAL journal mode is not available", SQLITE_CANTOPEN,
                       mode.sql());
    }
    mode = Statement();
    db.exec("PRAGMA synchronous=NORMAL");
  } else if (options.fast) {
    // A 64 MiB page cache and in-memory temporaries keep a bulk load and the index builds
    // after it off the disk until commit: with the 2 MiB default, building an index over
    // 400,000 rows spills its sort to temporary files and costs more than the inserts.
    db.exec(
        "PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY; "
        "PRAGMA cache_size=-65536");
  }
  // Referential integrity is off by default in SQLite for compatibility; Gantry's schemas
  // rely on it where they declare foreign keys.
  db.exec("PRAGMA foreign_keys=ON");
  return db;
}

Database::~Database() {
  // sqlite3_close_v2 never fails: with statements still alive it defers the close until the
  // last one is finalized, which is the best a destructor can do.
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

void Database::close() {
  if (db_ == nullptr) return;
  const int rc = sqlite3_close(db_);
  if (rc != SQLITE_OK) fail(rc, {});
  db_ = nullptr;
}

sqlite3* Database::checked() const {
  if (db_ == nullptr) {
    throw StoreError(path_, "the database is not open", SQLITE_MISUSE);
  }
  return db_;
}

void Database::fail(int rc, std::string_view sql) const {
  const int code = sqlite3_extended_errcode(db_);
  throw StoreError(path_, sqlite3_errmsg(db_), code != SQLITE_OK ? code : rc, std::string(sql));
}

void Database::exec(std::string_view sql) {
  sqlite3* db = checked();
  // sqlite3_exec needs a NUL-terminated string.
  const std::string text(sql);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string message = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    const int code = sqlite3_extended_errcode(db);
    throw StoreError(path_, std::move(message), code != SQLITE_OK ? code : rc, text);
  }
}

Statement Database::prepare(std::string_view sql) {
  sqlite3* db = checked();
  if (sql.size() > static_cast<std::size_t>(INT32_MAX)) {
    throw StoreError(path_, "statement too long", SQLITE_TOOBIG, std::string(sql.substr(0, 200)));
  }
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
  if (rc != SQLITE_OK) fail(rc, sql);
  Statement out(stmt, std::string(sql), path_);  // owns stmt from here on, even if we throw
  if (stmt == nullptr) throw StoreError(path_, "no statement to prepare", SQLITE_MISUSE, out.sql());
  for (const char* p = tail; p != nullptr && p < sql.data() + sql.size(); ++p) {
    const char c = *p;
    if (c != ';' && c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      throw StoreError(path_, "prepare() takes one statement; use exec() for several",
                       SQLITE_MISUSE, out.sql());
    }
  }
  return out;
}

int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(checked()); }

int64_t Database::changes() const { return sqlite3_changes64(checked()); }

bool Database::autocommit() const { return sqlite3_get_autocommit(checked()) != 0; }

int Database::user_version() {
  Statement query = prepare("PRAGMA user_version");
  query.step();
  return static_cast<int>(query.column_int64(0));
}

int Database::migrate(const std::vector<std::string>& steps) {
  const int from = user_version();
  // user_version is a signed field of the file header: a damaged or foreign file can hold a
  // negative one, which no step ever wrote (found by tests/fuzz/run_store_fuzz.cpp).
  if (from < 0) {
    throw StoreError(path_,
                     "schema version " + std::to_string(from) +
                         " is not one Gantry writes (a damaged or foreign file)",
                     SQLITE_CORRUPT);
  }
  if (from > static_cast<int>(steps.size())) {
    throw StoreError(path_,
                     "schema version " + std::to_string(from) + " but this program knows only " +
                         std::to_string(steps.size()) +
                         " migration steps (written by a newer Gantry?)",
                     SQLITE_ERROR);
  }
  int applied = 0;
  for (int i = from; i < static_cast<int>(steps.size()); ++i) {
    Transaction tx(*this);
    // Re-read inside the write lock: another connection may have migrated meanwhile.
    if (user_version() > i) continue;  // tx rolls back an empty transaction
    exec(steps[static_cast<std::size_t>(i)]);
    // user_version lives in the file header, which the transaction covers: the step and
    // its version bump commit together or not at all.
    exec("PRAGMA user_version = " + std::to_string(i + 1));
    tx.commit();
    ++applied;
  }
  return applied;
}

// --- Transaction -------------------------------------------------------------------------

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (committed_ || !db_.is_open()) return;
  // Some errors (SQLITE_FULL, SQLITE_IOERR, ...) make SQLite roll back on its own; a second
  // ROLLBACK would then fail with "no transaction is active".
  if (db_.autocommit()) return;
  try {
    db_.exec("ROLLBACK");
  } catch (const StoreError&) {
    // Nothing better to do in a destructor: closing the connection rolls back anyway.
  }
}

void Transaction::commit() {
  assert(!committed_ && "Transaction::commit() called twice");
  db_.exec("COMMIT");
  committed_ = true;
}

}  // namespace gantry
