#include "web/server/yaml_json.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>

namespace gantry::web {

namespace {

nlohmann::ordered_json scalar(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: a string whatever it looks like
  if (s == "true") return true;
  if (s == "false") return false;
  if (s == "null" || s == "~" || s.empty()) return nullptr;
  int64_t i = 0;
  if (auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), i);
      ec == std::errc() && p == s.data() + s.size())
    return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
      ec == std::errc() && p == s.data() + s.size())
    return d;
  return s;
}

nlohmann::ordered_json convert(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      for (const auto& kv : n) j[kv.first.as<std::string>()] = convert(kv.second);
      return j;
    }
    case YAML::NodeType::Sequence: {
      nlohmann::ordered_json j = nlohmann::ordered_json::array();
      for (const auto& item : n) j.push_back(convert(item));
      return j;
    }
    case YAML::NodeType::Scalar:
      return scalar(n);
    default:
      return nullptr;
  }
}

}  // namespace

nlohmann::ordered_json yaml_to_json(const std::string& yaml) { return convert(YAML::Load(yaml)); }

namespace {

void emit(YAML::Emitter& out, const nlohmann::json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      out << YAML::BeginMap;
      for (const auto& [k, v] : j.items()) {
        out << YAML::Key << k << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      return;
    case nlohmann::json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& v : j) emit(out, v);
      out << YAML::EndSeq;
      return;
    case nlohmann::json::value_t::string:
      out << YAML::DoubleQuoted << j.get<std::string>();
      return;
    case nlohmann::json::value_t::null:
      out << YAML::Null;
      return;
    default:  // numbers and booleans as JSON writes them, which YAML reads the same way
      out << j.dump();
      return;
  }
}

}  // namespace

std::string json_to_yaml(const nlohmann::json& json) {
  YAML::Emitter out;
  out << YAML::Block;
  emit(out, json);
  return std::string(out.c_str()) + "\n";
}

}  // namespace gantry::web
