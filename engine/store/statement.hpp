#pragma once
// Statement: one prepared SQLite statement, owned.
//
// Made by Database::prepare(). Bind parameters by 1-based index (SQLite's convention), step
// through the rows, read columns by 0-based index (also SQLite's convention), reset() to run
// it again (with the same or new values). Reusing one prepared statement for many rows is
// what makes bulk inserts fast: the SQL is parsed once.
//
//   Statement insert = db.prepare("INSERT INTO t(a, b, c) VALUES (?, ?, ?)");
//   for (const Row& r : rows) {
//     insert.bind_all(r.a, r.b, std::optional<double>{});  // third is NULL
//     insert.step();
//     insert.reset();
//   }
//
// Ownership: the Statement finalizes its sqlite3_stmt in its destructor. It must not outlive
// the Database that prepared it (SQLite refuses to close a connection with live statements;
// Database::close() reports that as a StoreError). Movable, not copyable; a moved-from or
// default-constructed Statement is empty and every operation on it throws StoreError.
//
// Thread-safety: none of its own. A Statement belongs to its Database's thread.
//
// Errors: every SQLite failure throws StoreError with the statement's SQL and the path of the
// database that prepared it (store_error.hpp).

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "engine/core/time.hpp"

struct sqlite3_stmt;

namespace gantry {

// Text bound without a copy: SQLite reads the caller's bytes in place. They must stay valid
// and unchanged until the last step() that uses this binding has returned. For hot insert
// loops where the row outlives the step(); everywhere else bind the string itself (copied).
struct BorrowedText {
  std::string_view text;
};

class Statement {
 public:
  Statement() = default;  // empty
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool empty() const { return stmt_ == nullptr; }
  // The SQL text as prepared.
  const std::string& sql() const { return sql_; }

  // --- Binding. `index` is 1-based. A binding stays until rebound or reset(). ---------------
  Statement& bind_int64(int index, int64_t value);
  Statement& bind_double(int index, double value);          // NaN is stored as NULL (SQLite's rule)
  Statement& bind_text(int index, std::string_view value);  // copied by SQLite
  Statement& bind_text(int index, BorrowedText value);      // not copied; see BorrowedText
  Statement& bind_null(int index);

  // Picks the binding by type: integers and bool -> int64, floating point -> double, strings
  // -> text (copied), BorrowedText -> text (not copied), Time -> int64 microseconds, nullptr
  // and an empty std::optional -> NULL.
  template <typename T>
  Statement& bind(int index, const T& value);

  // Binds the arguments to parameters 1, 2, ... in order, as bind() would.
  template <typename... Args>
  Statement& bind_all(const Args&... args) {
    return bind_from(1, args...);
  }
  // ... to parameters first, first + 1, ...: one row of a multi-row INSERT.
  template <typename... Args>
  Statement& bind_from(int first, const Args&... args) {
    int index = first - 1;
    (bind(++index, args), ...);
    return *this;
  }

  // --- Running. ----------------------------------------------------------------------------
  // Runs to the next row: true when a row is available to read, false when done.
  // On failure throws StoreError; the statement is reset so it can be used again.
  bool step();
  // Rewinds the statement so it runs again. Bindings stay as they were (SQLite's rule), so a
  // statement can be rerun as is, or with only some parameters rebound.
  Statement& reset();
  // Sets every parameter back to NULL.
  Statement& clear_bindings();

  // --- Reading the current row. `column` is 0-based; valid only after step() returned true.
  // A NULL reads as 0, 0.0 or "" (SQLite's conversions); use column_is_null() to tell.
  int column_count() const;
  int64_t column_int64(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  bool column_is_null(int column) const;

 private:
  friend class Database;
  Statement(sqlite3_stmt* stmt, std::string sql, std::string path)
      : stmt_(stmt), sql_(std::move(sql)), path_(std::move(path)) {}

  sqlite3_stmt* checked() const;  // throws StoreError when empty
  void check_bind(int rc, int index) const;
  Statement& bind_text_with(int index, std::string_view value, bool copy);

  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
  std::string path_;  // the database's, for error messages
};

namespace store_detail {
template <typename T>
struct IsOptional : std::false_type {};
template <typename T>
struct IsOptional<std::optional<T>> : std::true_type {};
}  // namespace store_detail

template <typename T>
Statement& Statement::bind(int index, const T& value) {
  if constexpr (store_detail::IsOptional<T>::value) {
    return value.has_value() ? bind(index, *value) : bind_null(index);
  } else if constexpr (std::is_same_v<T, std::nullptr_t> || std::is_same_v<T, std::nullopt_t>) {
    return bind_null(index);
  } else if constexpr (std::is_same_v<T, BorrowedText>) {
    return bind_text(index, value);
  } else if constexpr (std::is_same_v<T, Time>) {
    return bind_int64(index, value.micros());
  } else if constexpr (std::integral<T>) {
    return bind_int64(index, static_cast<int64_t>(value));
  } else if constexpr (std::floating_point<T>) {
    return bind_double(index, static_cast<double>(value));
  } else if constexpr (std::is_enum_v<T>) {
    static_assert(!std::is_enum_v<T>, "bind an enum through its to_string() or its integer");
    return *this;
  } else {
    static_assert(std::is_convertible_v<const T&, std::string_view>,
                  "bind() takes integers, floating point, strings, Time, nullptr or optional");
    return bind_text(index, std::string_view(value));
  }
}

}  // namespace gantry
