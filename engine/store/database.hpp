#pragma once
// Database: one SQLite connection, owned, with schema migrations.
//
// The store of DESIGN.md rule 5: pipeline runs, task instances and events of the orchestrator
// (opened with `wal`), and the results database of `gantry simulate` (opened with `fast`).
//
//   Database db = Database::open("gantry.db", {.wal = true});
//   db.migrate({"CREATE TABLE runs(id INTEGER PRIMARY KEY, state TEXT)",
//               "ALTER TABLE runs ADD COLUMN note TEXT"});
//   Transaction tx(db);
//   db.prepare("INSERT INTO runs(state) VALUES (?)").bind_all("queued").step();
//   tx.commit();
//
// Ownership: the Database owns its sqlite3 connection and closes it in its destructor (or in
// close()). Statements it prepares must be destroyed first. Movable, not copyable.
//
// Thread-safety: a Database is used from one thread only, the event loop's (DESIGN.md rule 1).
// Other threads post() work into the loop rather than touching the connection. The connection
// is opened with SQLITE_OPEN_NOMUTEX accordingly: SQLite adds no locking of its own.
//
// Errors: every failure throws StoreError (store_error.hpp explains why the store throws).

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/time.hpp"
#include "engine/store/statement.hpp"
#include "engine/store/store_error.hpp"

struct sqlite3;

namespace gantry {

struct OpenOptions {
  // Create the file if it does not exist; otherwise opening a missing file fails.
  bool create = true;
  // Open read-only: nothing is written to the file, no journal mode is set. Excludes create,
  // wal and fast (open() throws).
  bool read_only = false;
  // journal_mode=WAL, synchronous=NORMAL: readers do not block the writer, and a commit
  // survives a process kill (a power loss may lose the last commits, never corrupt). For the
  // orchestrator's state.
  bool wal = false;
  // journal_mode=MEMORY, synchronous=OFF: no fsync, no journal file. A crash mid-write may
  // leave a corrupt file, which is fine for results that are recomputed by rerunning the
  // simulation. MEMORY rather than OFF so that Transaction can still roll back. Also a
  // 64 MiB page cache and in-memory temporary tables, for bulk loads.
  // `wal` and `fast` are exclusive; setting both makes open() throw.
  bool fast = false;
  // How long a statement waits on a lock held by another connection before failing with
  // SQLITE_BUSY. Zero fails at once.
  Duration busy_timeout = seconds(5);
};

// Throws StoreError naming `path` when something exists there that is not a regular file (a
// directory, a device node, a FIFO; symlinks are judged by their target). A missing path or a
// regular file passes: it only stats, never opens the file (closing a descriptor of a database
// file would drop this process's SQLite locks on it). Database::open() calls it first, then
// refuses a non-empty file without SQLite's header through SQLite's own file handle, before
// any byte is read or written, so no SQLite connection ever writes into a foreign file.
void check_database_file(const std::string& path);

class Database {
 public:
  // Opens (or creates, see OpenOptions::create) the database file at `path`, read-write
  // unless read_only, and applies the options. ":memory:" opens a private in-memory database.
  // Refuses what is not a database before SQLite reads or writes it (check_database_file()).
  // Throws StoreError naming `path` when the file cannot be opened.
  static Database open(const std::string& path, const OpenOptions& options = {});

  Database() = default;  // closed; every operation throws StoreError
  ~Database();
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  bool is_open() const { return db_ != nullptr; }
  const std::string& path() const { return path_; }

  // Closes the connection now. Throws StoreError if statements prepared from it are still
  // alive (the connection then stays open). Closing a closed Database does nothing.
  void close();

  // Runs one or more ';'-separated statements that return no rows of interest (DDL, PRAGMA
  // writes, BEGIN/COMMIT). For anything with parameters, use prepare().
  void exec(std::string_view sql);

  // Compiles exactly one statement. Trailing whitespace and ';' are allowed; a second
  // statement in `sql` is an error (it would be silently ignored otherwise).
  Statement prepare(std::string_view sql);

  // Rowid of the most recent successful INSERT on this connection (0 if none).
  int64_t last_insert_rowid() const;
  // Rows changed by the most recent INSERT, UPDATE or DELETE.
  int64_t changes() const;
  // False while a transaction is open.
  bool autocommit() const;

  // PRAGMA user_version: the number of migration steps applied so far.
  int user_version();

  // Brings the schema up to date: applies steps[user_version()], steps[user_version() + 1],
  // ... each (it may hold several ';'-separated statements) in its own transaction that also
  // sets user_version to the step's index + 1. So a step is applied exactly once, and a
  // failed step leaves the database as it was after the previous one.
  // Steps are append-only: never edit or reorder a step that has shipped.
  // Returns the number of steps applied. Throws StoreError when a step fails, or when the
  // database is at a user_version beyond steps.size() (written by a newer Gantry).
  int migrate(const std::vector<std::string>& steps);

 private:
  Database(struct sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  struct sqlite3* checked() const;  // throws StoreError when closed
  [[noreturn]] void fail(int rc, std::string_view sql) const;

  struct sqlite3* db_ = nullptr;
  std::string path_;
};

}  // namespace gantry
