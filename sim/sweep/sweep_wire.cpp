#include "sim/sweep/sweep_wire.hpp"

#include <cmath>
#include <limits>

#include "engine/core/errors.hpp"

namespace gantry {

namespace {

[[noreturn]] void bad(const std::string& field, const std::string& expected) {
  throw GantryError(field + ": expected " + expected);
}

const nlohmann::json& member(const nlohmann::json& j, const std::string& key,
                             const std::string& field) {
  if (!j.is_object()) bad(field.substr(0, field.rfind('.')), "an object");
  const auto it = j.find(key);
  if (it == j.end()) throw GantryError(field + ": missing");
  return *it;
}

uint64_t unsigned_at(const nlohmann::json& j, const std::string& key, const std::string& field) {
  const nlohmann::json& v = member(j, key, field);
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0)
    return static_cast<uint64_t>(v.get<int64_t>());
  bad(field, "a whole number of 0 or more");
}

}  // namespace

nlohmann::json documents_json(const SweepDocuments& docs) {
  return {{"root", docs.root}, {"sweep", docs.sweep}, {"documents", docs.files}};
}

SweepDocuments documents_from_json(const nlohmann::json& j) {
  SweepDocuments docs;
  const nlohmann::json& root = member(j, "root", "root");
  const nlohmann::json& sweep = member(j, "sweep", "sweep");
  const nlohmann::json& files = member(j, "documents", "documents");
  if (!root.is_string()) bad("root", "a string (the folder the documents' paths are relative to)");
  if (!sweep.is_string()) bad("sweep", "a string (the key of the kind: Sweep document)");
  if (!files.is_object()) bad("documents", "an object of path: text");
  docs.root = root.get<std::string>();
  docs.sweep = sweep.get<std::string>();
  for (const auto& [key, text] : files.items()) {
    if (!text.is_string()) bad("documents[\"" + key + "\"]", "the file's text, a string");
    docs.files[key] = text.get<std::string>();
  }
  return docs;
}

nlohmann::json run_json(const PostedRun& run) {
  nlohmann::json metrics = nlohmann::json::array();
  for (double m : run.metrics) {
    if (std::isnan(m))
      metrics.push_back(nullptr);
    else
      metrics.push_back(m);
  }
  return {
      {"run", run.run}, {"seed", run.seed}, {"fingerprint", run.fingerprint}, {"metrics", metrics}};
}

PostedRun run_from_json(const nlohmann::json& j, const std::string& where) {
  PostedRun r;
  r.run = unsigned_at(j, "run", where + ".run");
  r.seed = unsigned_at(j, "seed", where + ".seed");
  r.fingerprint = unsigned_at(j, "fingerprint", where + ".fingerprint");
  const nlohmann::json& metrics = member(j, "metrics", where + ".metrics");
  if (!metrics.is_array()) bad(where + ".metrics", "an array of numbers (null: no value)");
  for (size_t i = 0; i < metrics.size(); ++i) {
    const nlohmann::json& m = metrics[i];
    if (m.is_null())
      r.metrics.push_back(std::numeric_limits<double>::quiet_NaN());
    else if (m.is_number())
      r.metrics.push_back(m.get<double>());
    else
      bad(where + ".metrics[" + std::to_string(i) + "]", "a number or null");
  }
  return r;
}

}  // namespace gantry
