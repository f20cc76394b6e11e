#pragma once
// A YAML document as JSON, for GET /pipelines/{name}'s "spec": maps to objects (keys in
// document order), sequences to arrays, plain scalars that read as integers, floats, true,
// false or null to those, every other scalar (quoted ones too) to a string. Throws
// YAML::Exception for text that does not parse.

#include <nlohmann/json.hpp>
#include <string>

namespace gantry::web {

nlohmann::ordered_json yaml_to_json(const std::string& yaml);

}  // namespace gantry::web
