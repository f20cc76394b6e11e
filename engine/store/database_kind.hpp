#pragma once
// Whose database a file is, so that Gantry never writes into, nor deletes, a file it did not
// create (issue 8: `pipeline run --db PATH` used to delete whatever PATH was).
//
// The test is SQLite's application_id (PRAGMA application_id: a 32-bit number in the file
// header reserved for exactly this, https://sqlite.org/pragma.html#pragma_application_id).
// Each kind of Gantry database has its own; files that older versions of Gantry wrote before
// they set it are recognised by their tables (`legacy_schemas`) and stamped when claimed.
//
//   claim(db, kRunsDatabase);                      // after open, before migrate
//   remove_database(path, kResultsDatabase);       // before writing a fresh one
//
// Errors: StoreError naming the path and saying what the file is instead.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/store/database.hpp"

namespace gantry {

struct DatabaseKind {
  uint32_t application_id = 0;
  std::string name;  // for messages: "Gantry runs database"
  // A database whose application_id is 0 is of this kind (written by an older Gantry) when
  // every table of one of these sets exists.
  std::vector<std::vector<std::string>> legacy_schemas;
};

enum class Ownership {
  kEmpty,    // no tables and application_id 0: a brand-new (or zero-byte) file
  kOurs,     // application_id matches
  kLegacy,   // application_id 0, and the tables of a legacy schema
  kForeign,  // anything else: another program's database, or another kind of Gantry's
};

struct Identity {
  Ownership ownership = Ownership::kEmpty;
  // For messages: "an SQLite database with application_id 0x12345678 and tables a, b".
  std::string description;
};

// Reads the identity of an open database (application_id and table names). Throws StoreError
// when the file cannot be read.
Identity identify(Database& db, const DatabaseKind& kind);

// Makes an open, writable database `kind`'s: stamps an empty or legacy one with the kind's
// application_id. Throws StoreError naming the path when it is foreign; nothing is written
// then. Call before migrate(), so that migrations never run inside someone else's file.
void claim(Database& db, const DatabaseKind& kind);

// What is at `path`, read without changing it: nullopt when nothing is there. Throws
// StoreError when the path cannot be a database at all (check_database_file()).
std::optional<Identity> identify_file(const std::string& path, const DatabaseKind& kind);

// Throws StoreError naming `path` unless it is missing, empty or a `kind` database; the
// message says what it is and that Gantry leaves it alone.
void check_replaceable(const std::string& path, const DatabaseKind& kind);

// check_replaceable(), then deletes the database at `path` and its -wal, -shm and -journal
// sidecars (a stale WAL would otherwise be replayed into the next database of that name).
void remove_database(const std::string& path, const DatabaseKind& kind);

// Deletes only the sidecars of `path` (-wal, -shm, -journal), for a file about to be replaced
// by rename(). Throws StoreError when one exists and cannot be removed.
void remove_sidecars(const std::string& path);

}  // namespace gantry
