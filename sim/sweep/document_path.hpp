#pragma once
// Field paths into a YAML document, as a Sweep's axes and a Plan's pools write them:
//
//   spec.policy.placement                        a field
//   spec.workload.generators[0].meanInterarrival an item of a list, then a field of it
//   spec.cluster.racks[*].nodes                  the field of every item of a list
//
// A path is dotted field names (letters, digits, '_' and '-'), each optionally followed by
// indices `[i]` or the wildcard `[*]`. `expand_path` resolves one against a document into the
// concrete paths it addresses (the wildcard gives one per item, in order); `set_at_path`
// replaces the value at a concrete path.
//
// What must exist: every list item on the way. A field absent from its map is added when the
// rest of the path is fields (as maps, then the value), and the document's own reader says
// whether it is allowed there: a Sweep may set `spec.policy.placement` in a scenario that
// leaves the whole policy at its defaults, and `spec.polcy.placement` is then refused by the
// Scenario reader as an unknown field. An index past the end, a wildcard over an empty list, an
// index or wildcard under an absent field, or a step into something that is not a map or a
// list is an error naming the path, the prefix that failed and what is there instead.

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace gantry {

// One step of a path: a field name, an index, or the wildcard.
struct PathStep {
  enum class Kind { kField, kIndex, kEvery } kind = Kind::kField;
  std::string field;  // kField
  size_t index = 0;   // kIndex
};

// The steps of `text`; nullopt when it is not a path of the form above (empty, a stray '.',
// an unclosed '[', a negative or non-numeric index, characters outside the allowed ones).
std::optional<std::vector<PathStep>> parse_path(const std::string& text);

// `steps` written back as text: "spec.cluster.racks[2].nodes".
std::string path_text(const std::vector<PathStep>& steps);

// The concrete paths (no wildcard) that `steps` addresses in `root`, in document order. Throws
// std::invalid_argument with a message such as "spec.cluster.racks[7]: spec.cluster.racks has
// 4 items" when something on the way is missing (see above).
std::vector<std::vector<PathStep>> expand_path(const YAML::Node& root,
                                               const std::vector<PathStep>& steps);

// Replaces the value at a concrete path that expand_path() gave for this `root` with `value`,
// adding the absent fields on the way.
void set_at_path(YAML::Node root, const std::vector<PathStep>& concrete, const YAML::Node& value);

// The value at a concrete path; an undefined node when the last field is absent.
YAML::Node value_at_path(const YAML::Node& root, const std::vector<PathStep>& concrete);

}  // namespace gantry
