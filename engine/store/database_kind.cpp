#include "engine/store/database_kind.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "engine/store/transaction.hpp"

namespace gantry {

namespace {

std::vector<std::string> table_names(Database& db) {
  std::vector<std::string> out;
  Statement s = db.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
      " ORDER BY name");
  while (s.step()) out.push_back(s.column_text(0));
  return out;
}

uint32_t application_id(Database& db) {
  Statement s = db.prepare("PRAGMA application_id");
  return s.step() ? static_cast<uint32_t>(s.column_int64(0)) : 0;
}

bool has_all(const std::vector<std::string>& tables, const std::vector<std::string>& wanted) {
  return std::all_of(wanted.begin(), wanted.end(), [&](const std::string& t) {
    return std::binary_search(tables.begin(), tables.end(), t);
  });
}

std::string describe(uint32_t id, const std::vector<std::string>& tables) {
  std::string out = "an SQLite database";
  if (id != 0) out += fmt::format(" with application_id {:#010x}", id);
  if (tables.empty()) return out + " without tables";
  constexpr size_t kShown = 6;
  std::string list;
  for (size_t i = 0; i < tables.size() && i < kShown; ++i) list += (i == 0 ? "" : ", ") + tables[i];
  if (tables.size() > kShown) list += fmt::format(", ... ({} in all)", tables.size());
  return out + " with tables " + list;
}

[[noreturn]] void refuse(const std::string& path, const std::string& what,
                         const DatabaseKind& kind) {
  throw StoreError(path,
                   "exists and is " + what + ", not a " + kind.name +
                       "; Gantry never writes into or deletes a file it did not create",
                   StoreError::kGantry);
}

}  // namespace

Identity identify(Database& db, const DatabaseKind& kind) {
  const uint32_t id = application_id(db);
  const std::vector<std::string> tables = table_names(db);
  Identity out;
  out.description = describe(id, tables);
  if (id == kind.application_id) {
    out.ownership = Ownership::kOurs;
  } else if (id != 0) {
    out.ownership = Ownership::kForeign;
  } else if (tables.empty()) {
    out.ownership = Ownership::kEmpty;
  } else {
    const bool legacy = std::any_of(kind.legacy_schemas.begin(), kind.legacy_schemas.end(),
                                    [&](const auto& schema) { return has_all(tables, schema); });
    out.ownership = legacy ? Ownership::kLegacy : Ownership::kForeign;
  }
  return out;
}

void claim(Database& db, const DatabaseKind& kind) {
  // Under the write lock, so that nobody creates tables between the look and the stamp.
  Transaction tx(db);
  const Identity identity = identify(db, kind);
  switch (identity.ownership) {
    case Ownership::kOurs:
      return;  // tx rolls back an empty transaction
    case Ownership::kForeign:
      refuse(db.path(), identity.description, kind);
    case Ownership::kEmpty:
    case Ownership::kLegacy:
      db.exec(fmt::format("PRAGMA application_id = {}", static_cast<int32_t>(kind.application_id)));
      tx.commit();
      return;
  }
}

std::optional<Identity> identify_file(const std::string& path, const DatabaseKind& kind) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && !ec) return std::nullopt;
  check_database_file(path);
  OpenOptions options;
  options.create = false;
  options.read_only = true;
  Database db = Database::open(path, options);
  return identify(db, kind);
}

void check_replaceable(const std::string& path, const DatabaseKind& kind) {
  const std::optional<Identity> identity = identify_file(path, kind);
  if (identity && identity->ownership == Ownership::kForeign)
    refuse(path, identity->description, kind);
}

void remove_sidecars(const std::string& path) {
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string file = path + suffix;
    std::error_code ec;
    if (!std::filesystem::remove(file, ec) && ec) {
      throw StoreError(path, "cannot remove '" + file + "': " + ec.message(), StoreError::kGantry);
    }
  }
}

void remove_database(const std::string& path, const DatabaseKind& kind) {
  check_replaceable(path, kind);
  std::error_code ec;
  if (!std::filesystem::remove(path, ec) && ec)
    throw StoreError(path, "cannot remove: " + ec.message(), StoreError::kGantry);
  remove_sidecars(path);
}

}  // namespace gantry
