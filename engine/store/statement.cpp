#include "engine/store/statement.hpp"

#include <sqlite3.h>

#include <climits>

#include "engine/store/store_error.hpp"

namespace gantry {

Statement::~Statement() {
  // sqlite3_finalize returns the error of the last step, already reported by step().
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      sql_(std::move(other.sql_)),
      path_(std::move(other.path_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    sql_ = std::move(other.sql_);
    path_ = std::move(other.path_);
  }
  return *this;
}

sqlite3_stmt* Statement::checked() const {
  if (stmt_ == nullptr) throw StoreError(path_, "use of an empty Statement", SQLITE_MISUSE, sql_);
  return stmt_;
}

void Statement::check_bind(int rc, int index) const {
  if (rc == SQLITE_OK) return;
  std::string message = "cannot bind parameter " + std::to_string(index);
  if (rc == SQLITE_RANGE) {
    message += " (the statement has " + std::to_string(sqlite3_bind_parameter_count(stmt_)) + ")";
  } else {
    message += std::string(": ") + sqlite3_errmsg(sqlite3_db_handle(stmt_));
  }
  throw StoreError(path_, std::move(message), rc, sql_);
}

Statement& Statement::bind_int64(int index, int64_t value) {
  check_bind(sqlite3_bind_int64(checked(), index, value), index);
  return *this;
}

Statement& Statement::bind_double(int index, double value) {
  check_bind(sqlite3_bind_double(checked(), index, value), index);
  return *this;
}

Statement& Statement::bind_text(int index, std::string_view value) {
  // SQLITE_TRANSIENT: SQLite copies the bytes, so the caller's string may go away before
  // step(). The copy is cheap next to the insert itself.
  return bind_text_with(index, value, /*copy=*/true);
}

Statement& Statement::bind_text(int index, BorrowedText value) {
  return bind_text_with(index, value.text, /*copy=*/false);
}

Statement& Statement::bind_text_with(int index, std::string_view value, bool copy) {
  sqlite3_stmt* stmt = checked();
  if (value.size() > static_cast<std::size_t>(INT_MAX)) {
    throw StoreError(path_, "text of " + std::to_string(value.size()) + " bytes is too big to bind",
                     SQLITE_TOOBIG, sql_);
  }
  check_bind(sqlite3_bind_text(stmt, index, value.data(), static_cast<int>(value.size()),
                               copy ? SQLITE_TRANSIENT : SQLITE_STATIC),
             index);
  return *this;
}

Statement& Statement::bind_null(int index) {
  check_bind(sqlite3_bind_null(checked(), index), index);
  return *this;
}

bool Statement::step() {
  sqlite3_stmt* stmt = checked();
  const int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3* db = sqlite3_db_handle(stmt);
  std::string message = sqlite3_errmsg(db);
  const int code = sqlite3_extended_errcode(db);
  sqlite3_reset(stmt);  // leave it reusable; reset repeats the error, already captured
  throw StoreError(path_, std::move(message), code != SQLITE_OK ? code : rc, sql_);
}

Statement& Statement::reset() {
  sqlite3_stmt* stmt = checked();
  // The return value of sqlite3_reset repeats the last step()'s error, already thrown there.
  sqlite3_reset(stmt);
  return *this;
}

Statement& Statement::clear_bindings() {
  sqlite3_clear_bindings(checked());
  return *this;
}

int Statement::column_count() const { return sqlite3_column_count(checked()); }

int64_t Statement::column_int64(int column) const {
  return sqlite3_column_int64(checked(), column);
}

double Statement::column_double(int column) const {
  return sqlite3_column_double(checked(), column);
}

std::string Statement::column_text(int column) const {
  sqlite3_stmt* stmt = checked();
  // Ask for the text before its size: the conversion to text may change the size.
  const unsigned char* text = sqlite3_column_text(stmt, column);
  if (text == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt, column)));
}

bool Statement::column_is_null(int column) const {
  return sqlite3_column_type(checked(), column) == SQLITE_NULL;
}

}  // namespace gantry
