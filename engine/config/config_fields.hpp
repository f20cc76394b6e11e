#pragma once
// The fields of a YAML map, read so that every problem is recorded in a ConfigErrors
// (config_errors.hpp) and reading goes on: the collecting counterpart of ConfigMap.
//
//   const ConfigFields f(node, {"cpu", "memory", "gpu"}, errors);  // every unknown key recorded
//   f.read("cpu", [&](const ConfigNode& n) { r.cpu_milli = read_cpu(n); });
//   f.read_required("memory", [&](const ConfigNode& n) { r.memory_bytes = read_memory(n); });
//
// A node that is not a map, or a map with a duplicate or non-string key, is one error; then
// the map is not valid() and has no fields (so nothing is reported missing from it).
//
// Retired fields: a field that once belonged here and moved elsewhere is reported with its own
// message saying where it went, instead of "unknown field", and remembered (retired()).
//
// Asking for a key that is not in `allowed` is a programming error: std::logic_error.
// A ConfigFields refers to its ConfigErrors, which must outlive it.

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"

namespace gantry {

// A field that moved, and the message that says where.
struct RetiredField {
  std::string_view key;
  std::string_view message;
};

class ConfigFields {
 public:
  ConfigFields(const ConfigNode& node, std::initializer_list<std::string_view> allowed,
               ConfigErrors& errors, std::initializer_list<RetiredField> retired = {});

  // Whether the node was a map with readable keys.
  bool valid() const { return valid_; }
  const ConfigNode& node() const { return node_; }
  ConfigErrors& errors() const { return *errors_; }

  bool has(std::string_view key) const { return optional(key).has_value(); }
  // The value of `key`, or nullopt if absent.
  std::optional<ConfigNode> optional(std::string_view key) const;
  // The value of `key`; when absent (and the map was valid), records "missing required field"
  // at the map's position and returns nullopt.
  std::optional<ConfigNode> required(std::string_view key) const;
  // Records "missing required field 'key'" followed by `why`, at the map's position.
  void missing(std::string_view key, const std::string& why = "") const;
  // The retired field `key`, when the map gave it (already reported).
  std::optional<ConfigNode> retired(std::string_view key) const;

  // Reads `key` with `read` when present; an InputError it throws is recorded. Returns whether
  // the key was present and read without error.
  template <typename F>
  bool read(std::string_view key, F&& read) const {
    if (auto n = optional(key)) return errors_->attempt([&] { read(*n); });
    return false;
  }
  // The same for a required key: absent is recorded as missing.
  template <typename F>
  bool read_required(std::string_view key, F&& read) const {
    if (auto n = required(key)) return errors_->attempt([&] { read(*n); });
    return false;
  }

 private:
  void check_allowed(std::string_view key) const;

  ConfigNode node_;
  std::vector<std::string_view> allowed_;
  ConfigErrors* errors_;
  std::map<std::string, ConfigNode, std::less<>> values_;
  std::map<std::string, ConfigNode, std::less<>> retired_;
  bool valid_ = false;
};

}  // namespace gantry
