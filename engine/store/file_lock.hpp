#pragma once
// FileLock: one writer per database, across processes (issue 8: two backfills on one runs
// database both executed every run and interleaved their attempts).
//
//   FileLock lock = FileLock::acquire("runs.db");   // locks runs.db.lock, or throws
//
// The lock is an flock(2) on a side file `<database>.lock`, taken without waiting, with the
// holder's process id written into it for the message a second process gets: "in use by pid
// N". Why a side file and flock rather than a lease row in the database: the kernel releases
// an flock when its holder dies, kill -9 included, so a crashed orchestrator never leaves a
// stale lock behind that a restart would have to break (a lease row would need a timeout, and
// a guess about clocks). The pid in the file may be stale after a crash; it is only read when
// the lock is held, so it then names the live holder.
//
// Why not SQLite's own locking: SQLite serialises transactions, not programs. Two processes
// that each commit one change at a time interleave freely, which is exactly what corrupted
// the history.
//
// The side file stays after release: deleting it would let a process that opened the old file
// and one that created a new one both hold "the" lock.
//
// Scope: advisory, between processes that use FileLock (every Gantry writer); readers (`gantry
// compare`, sqlite3) are not blocked. Within one process, a second acquire() of the same
// database fails too (flock locks belong to open file descriptions). On network file systems
// flock may be emulated or absent; Gantry's databases belong on local disk.
//
// Ownership: movable, not copyable; the destructor releases the lock. Errors: StoreError
// naming the database.

#include <string>

namespace gantry {

class FileLock {
 public:
  // Locks `database_path` + ".lock" (created if missing). Throws StoreError naming
  // `database_path` when another process holds it ("in use by pid N") or the side file cannot
  // be created (a read-only folder).
  static FileLock acquire(const std::string& database_path);

  FileLock() = default;  // holds nothing
  ~FileLock();
  FileLock(FileLock&& other) noexcept;
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

  bool held() const { return fd_ >= 0; }
  // Releases the lock now (the destructor does it otherwise).
  void release();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace gantry
