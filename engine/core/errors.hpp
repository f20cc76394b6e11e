#pragma once
// The typed exceptions of Gantry's boundaries (YAML files, command line, REST, Kubernetes).
// Each carries enough to tell a user what to fix; tools/ turns them into messages and exit
// codes in one place, web/ into HTTP codes.

#include <stdexcept>
#include <string>

namespace gantry {

// Base of every user-facing error.
class GantryError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A position in an input file. Lines and columns are 1-based; 0 means unknown.
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;

  // "file:line:column", dropping what is unknown.
  std::string to_string() const;
};

// Bad input in a file the user wrote: names where, which field, and what was expected.
// what() is "file:line:col: field: message".
class InputError : public GantryError {
 public:
  InputError(SourceLocation where, std::string field, std::string message);

  const SourceLocation& where() const { return where_; }
  const std::string& field() const { return field_; }
  const std::string& detail() const { return detail_; }

 private:
  SourceLocation where_;
  std::string field_;
  std::string detail_;
};

// A file that cannot be read at all.
class FileError : public GantryError {
 public:
  using GantryError::GantryError;
};

}  // namespace gantry
