#pragma once
// Error style inside engine/ and sim/ (CONTRIBUTING.md, "Errors"): what can fail returns a
// Status or a Result<T>; broken invariants are assertions. Boundaries (YAML, REST, the
// Kubernetes adapter) use the exceptions in errors.hpp instead.

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace gantry {

class Status {
 public:
  Status() = default;  // OK
  static Status ok() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool is_ok() const { return !message_.has_value(); }
  explicit operator bool() const { return is_ok(); }
  // Empty for an OK status.
  const std::string& message() const {
    static const std::string kEmpty;
    return message_ ? *message_ : kEmpty;
  }

 private:
  explicit Status(std::string m) : message_(std::move(m)) {}
  std::optional<std::string> message_;
};

// Either a value or an error message.
template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}       // NOLINT: implicit on purpose, like std::expected
  Result(Status error) : v_(std::move(error)) {}  // NOLINT

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return is_ok(); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const std::string& error() const { return std::get<Status>(v_).message(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace gantry
