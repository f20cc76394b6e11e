#include "web/server/document_split.hpp"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "web/server/yaml_json.hpp"

namespace gantry::web {

namespace {

bool is_marker(const std::string& line) {
  if (line.rfind("---", 0) != 0 && line.rfind("...", 0) != 0) return false;
  for (size_t i = 3; i < line.size(); ++i) {
    if (line[i] == '#') return true;
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') return false;
  }
  return true;
}

DocumentText describe(std::string text) {
  DocumentText d;
  try {
    const YAML::Node doc = YAML::Load(text);
    if (doc.IsMap()) {
      if (doc["kind"] && doc["kind"].IsScalar()) d.kind = doc["kind"].Scalar();
      if (doc["metadata"] && doc["metadata"].IsMap() && doc["metadata"]["name"] &&
          doc["metadata"]["name"].IsScalar())
        d.name = doc["metadata"]["name"].Scalar();
    }
  } catch (const YAML::Exception&) {
  }
  d.text = std::move(text);
  return d;
}

bool blank(const std::string& text) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first != std::string::npos && line[first] != '#') return false;
  }
  return true;
}

}  // namespace

std::vector<DocumentText> split_documents(const std::string& body) {
  std::vector<DocumentText> out;
  const size_t first = body.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && body[first] == '{') {
    const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("items") && j["items"].is_array()) {
      for (const auto& item : j["items"]) out.push_back(describe(json_to_yaml(item)));
      return out;
    }
    // Not JSON after all: left to the loader, which reports the syntax error with its position.
    out.push_back(describe(j.is_discarded() ? body : json_to_yaml(j)));
    return out;
  }
  std::istringstream in(body);
  std::string current;
  for (std::string line; std::getline(in, line);) {
    if (is_marker(line)) {
      if (!blank(current)) out.push_back(describe(std::move(current)));
      current.clear();
      continue;
    }
    current += line;
    current += '\n';
  }
  if (!blank(current)) out.push_back(describe(std::move(current)));
  return out;
}

}  // namespace gantry::web
