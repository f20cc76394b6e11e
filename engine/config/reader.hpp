#pragma once
// Strict reading of Gantry YAML files, on top of yaml-cpp.
//
// Every kind of file (Scenario, Experiment, Pipeline, Pool, operator events; Cluster, Sweep
// later) is read through these types, so every problem is reported the same way: a
// gantry::InputError naming the file, the 1-based line and column, the dotted field path
// ("spec.cluster.nodeClasses[1].gpu.count") and what was expected ("expected an integer, got
// 'eight'"). The loaders collect every such error of a file rather than stopping at the first
// (config_errors.hpp, config_fields.hpp); ConfigMap below is the strict form that throws.
//
// What "strict" means here:
//  - unknown keys are errors, listing the keys that are allowed (ConfigNode::as_map,
//    ConfigNode::allowed_entries);
//  - a key given twice in one map is an error (yaml-cpp keeps both entries; we check);
//  - keys must be plain scalars; YAML tags ("!!str", "!foo") are errors;
//  - numbers and booleans must be plain scalars: `count: "8"` is "expected an integer, got the
//    string '8'" (the Kubernetes rule). Unit fields (bytes, durations, CPU, bandwidth) accept
//    quoted and plain scalars alike, since `cpu: "2"` is idiomatic;
//  - null (`key:` with nothing, `~`, `null`) is never a valid value.
//
// Ownership: a ConfigNode is a cheap handle (a yaml-cpp node, which shares the parsed tree, a
// shared file name and its path string); copies stay valid after the text they came from is
// gone. Not thread-safe: yaml-cpp nodes share reference counts without locks.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/config/limits.hpp"
#include "engine/config/units.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/time.hpp"

namespace gantry {

class ConfigMap;
struct ConfigEntry;

// One name of an enumeration as users write it, and its value. Names compare case-sensitively.
template <typename E>
struct EnumName {
  std::string_view name;
  E value;
};

// A node of a parsed YAML document with its position and field path.
class ConfigNode {
 public:
  // `fallback` is where to point when the node itself has no useful mark: yaml-cpp marks an
  // empty value (`key:` followed by a newline) at the next token, so the key's mark is used.
  ConfigNode(YAML::Node node, std::shared_ptr<const std::string> file, std::string path,
             YAML::Mark fallback);

  const std::string& file() const { return *file_; }
  // Dotted field path from the document root; empty for the root itself.
  const std::string& path() const { return path_; }
  // File, 1-based line and column of this node.
  SourceLocation location() const;

  // Throws InputError at this node's location, naming its path.
  [[noreturn]] void fail(const std::string& message) const;

  bool is_null() const { return node_.IsNull(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_map() const { return node_.IsMap(); }

  // Scalars. Each throws InputError naming what was expected when the node is not one.
  std::string as_string() const;  // any scalar, quoted or plain; may be empty
  std::string as_name() const;    // a non-empty string without control characters
  int64_t as_int(int64_t min, int64_t max) const;
  double as_double(double min, double max) const;
  bool as_bool() const;  // true or false, nothing else
  // Unit fields (engine/config/units.hpp), each at most `max` (engine/config/limits.hpp for
  // the defaults); past it: "expected a duration from 0s to 36500d, got '1000000d' (value out
  // of range)".
  int64_t as_bytes(int64_t max = kMaxDataBytes) const;      // parse_bytes
  double as_bandwidth(double max = kMaxBandwidth) const;    // bytes per second
  Duration as_duration(Duration max = kMaxDuration) const;  // parse_duration
  // A duration above zero: "0s" is "expected a duration greater than zero, got '0s'".
  Duration as_positive_duration(Duration max = kMaxDuration) const;
  int64_t as_cpu_milli(int64_t max = std::numeric_limits<int64_t>::max()) const;
  // RFC 3339 ("2026-01-01T00:00:00Z"), within [kEarliestTime, kLatestTime]; a field out of
  // range is named ("offset +99:00 is out of range: hours 00-23, minutes 00-59").
  Time as_time() const;

  // One of `names`, case-sensitively; the error lists them all.
  template <typename E>
  E as_enum(std::initializer_list<EnumName<E>> names) const {
    std::vector<std::string_view> plain;
    for (const auto& n : names) plain.push_back(n.name);
    return (names.begin() + as_choice(plain))->value;
  }
  // Index into `names` of this scalar's value.
  size_t as_choice(const std::vector<std::string_view>& names) const;

  // A sequence's items, with paths "path[i]". An empty sequence gives an empty vector.
  std::vector<ConfigNode> as_sequence() const;

  // A map with free-form keys (labels, environment variables), in document order. Keys must be
  // plain scalars and unique; with Keys::kPlainOrQuoted they may also be quoted, for maps whose
  // keys are values rather than field names (an inference service's capacity table, keyed by
  // "A10@0.5", which YAML users quote).
  enum class Keys { kPlain, kPlainOrQuoted };
  std::vector<ConfigEntry> as_entries(Keys keys = Keys::kPlain) const;

  // A map whose keys must all be in `allowed`; see ConfigMap.
  ConfigMap as_map(std::initializer_list<std::string_view> allowed) const;

  // The entries of a map whose keys should all be in `allowed`, in document order. Each entry
  // with another key is left out and passed to `unknown` with the message "unknown field 'k';
  // expected one of: ..." (ConfigMap throws it, ConfigFields records it). Throws InputError
  // for a node that is not a map ("expected a map with fields ...") and as as_entries().
  std::vector<ConfigEntry> allowed_entries(
      const std::vector<std::string_view>& allowed,
      const std::function<void(const ConfigEntry&, std::string)>& unknown) const;

  // "missing required field 'key'", at this map's position with the path of the missing field.
  InputError missing_field(std::string_view key) const;

  // The child path for a key or an index of this node.
  std::string child_path(std::string_view key) const;
  std::string item_path(size_t index) const;

  // The underlying yaml-cpp node, for readers that need something not offered here.
  const YAML::Node& yaml() const { return node_; }

 private:
  friend class ConfigMap;
  // A node of the same file.
  ConfigNode derive(YAML::Node node, std::string path, YAML::Mark fallback) const;
  // Throws "expected <what>, got <description of this node>".
  [[noreturn]] void fail_expected(std::string_view what) const;
  // The scalar text, or fail_expected(what) if this is not a scalar.
  const std::string& scalar(std::string_view what) const;
  // Like scalar(), but also fails for quoted scalars: numbers and booleans must be plain.
  const std::string& plain_scalar(std::string_view what) const;

  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
  YAML::Mark fallback_;
};

// One key of a free-form map and its value (ConfigNode::as_entries).
struct ConfigEntry {
  std::string name;
  ConfigNode key;  // the key itself, so errors can point at it
  ConfigNode value;
};

// A YAML map whose keys were checked against a list of allowed keys. Construction fails on an
// unknown key ("unknown field 'gpuz'; expected one of: type, count, islandSize, link"), a
// duplicate key or a key that is not a plain scalar, pointing at the key.
class ConfigMap {
 public:
  ConfigMap(const ConfigNode& node, std::initializer_list<std::string_view> allowed);

  const ConfigNode& node() const { return node_; }
  [[noreturn]] void fail(const std::string& message) const { node_.fail(message); }

  bool has(std::string_view key) const;
  // The value of `key`; throws InputError "missing required field 'key'" at the map's position
  // with the path of the missing field.
  ConfigNode required(std::string_view key) const;
  // The value of `key`, or nullopt if the key is absent.
  std::optional<ConfigNode> optional(std::string_view key) const;

  // Keys are asked for by name; asking for a key that is not in `allowed` is a programming
  // error and throws std::logic_error.

 private:
  void check_allowed(std::string_view key) const;

  ConfigNode node_;
  std::vector<std::string> allowed_;
  std::map<std::string, ConfigNode, std::less<>> entries_;
};

// Parses every document of a YAML stream ("---"-separated), skipping empty documents.
// Syntax errors throw InputError at the mark yaml-cpp reports.
std::vector<ConfigNode> parse_yaml_documents(const std::string& text, const std::string& file);

// Parses a text that must hold exactly one non-empty document.
ConfigNode parse_yaml_document(const std::string& text, const std::string& file);

// The whole content of a file; throws FileError if it cannot be read, InputError (naming the
// file) if it is larger than `max_bytes`, checked before reading.
std::string read_text_file(const std::string& path, int64_t max_bytes = kMaxInputFileBytes);

}  // namespace gantry
