#pragma once
// A disk that fills up and gets its space back, for the disk-full tests (issue 22), kept out
// of the shipped program like the other faults (fault_injection.hpp). It is an SQLite VFS
// registered as the default in front of the system's: while the disk is "full", every write
// SQLite makes to any database file of the process (the database, its WAL, its journals) fails
// as a full file system makes it fail (SQLITE_FULL, "database or disk is full"); reads, and
// writes once the space is back, go through unchanged. Deterministic where a real small
// tmpfs is not: the test says exactly when the disk is full.
//
// Two switches: set_full() in process (the tests of web/ and workflow/), or, for a whole
// program (gantry-faulty: GANTRY_FULL_DISK_FLAG=PATH), a flag file: the disk is full while the
// file exists (looked at on every write).
//
// Thread safety: set_full() and the writes may run on any threads.

#include <string>

namespace gantry::testing {

class FullDisk {
 public:
  // Registers the VFS as SQLite's default, once per process (later calls do nothing); every
  // database opened afterwards goes through it. `flag_file`: see above; empty: set_full() only.
  static void install(const std::string& flag_file = "");
  static void set_full(bool full);
  static bool full();
  // Writes refused since install().
  static long refused();
};

}  // namespace gantry::testing
