#pragma once
// A YAML document as JSON, for GET /pipelines/{name}'s "spec": maps to objects (keys in
// document order), sequences to arrays, plain scalars that read as integers, floats, true,
// false or null to those, every other scalar (quoted ones too) to a string. Throws
// YAML::Exception for text that does not parse.

#include <nlohmann/json.hpp>
#include <string>

namespace gantry::web {

nlohmann::ordered_json yaml_to_json(const std::string& yaml);

// A JSON document as block YAML that the pipeline loader reads as it reads a file: keys plain
// (the loader refuses quoted field names), strings double-quoted (so "1" stays a string),
// numbers, booleans and null plain. For JSON bodies of POST /pipelines.
std::string json_to_yaml(const nlohmann::json& json);

}  // namespace gantry::web
