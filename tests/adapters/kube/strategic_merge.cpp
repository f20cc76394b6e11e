#include "tests/adapters/kube/strategic_merge.hpp"

#include <algorithm>
#include <map>
#include <string>

namespace gantry::kube::testing {

namespace {

using nlohmann::json;

// The merge key of a list by its path, in the pod itself and in a pod template.
const std::map<std::string, std::string>& merge_keys() {
  static const std::map<std::string, std::string> keys = [] {
    std::map<std::string, std::string> k = {{"metadata.ownerReferences", "uid"},
                                            {"status.conditions", "type"},
                                            {"status.addresses", "type"}};
    for (const std::string spec : {"spec", "spec.template.spec"}) {
      for (const std::string list : {"containers", "initContainers"}) {
        const std::string c = spec + "." + list;
        k[c] = "name";
        k[c + ".env"] = "name";
        k[c + ".ports"] = "containerPort";
        k[c + ".volumeMounts"] = "mountPath";
      }
      k[spec + ".volumes"] = "name";
    }
    return k;
  }();
  return keys;
}

bool is_directive(const std::string& key) { return !key.empty() && key[0] == '$'; }

json without_directives(const json& value) {
  if (!value.is_object()) return value;
  json out = json::object();
  for (const auto& [k, v] : value.items())
    if (!is_directive(k)) out[k] = without_directives(v);
  return out;
}

json merge_at(json target, const json& patch, const std::string& path);

json merge_list(json target, const json& patch, const std::string& path) {
  if (path == "metadata.finalizers") {  // a set of strings: union
    if (!target.is_array()) target = json::array();
    for (const json& v : patch)
      if (std::find(target.begin(), target.end(), v) == target.end()) target.push_back(v);
    return target;
  }
  const auto key = merge_keys().find(path);
  if (key == merge_keys().end()) return without_directives(patch);  // replaced whole
  if (!target.is_array()) target = json::array();
  const std::string& k = key->second;
  for (const json& element : patch) {
    if (!element.is_object() || !element.contains(k)) {
      target.push_back(without_directives(element));
      continue;
    }
    auto at = std::find_if(target.begin(), target.end(), [&](const json& e) {
      return e.is_object() && e.contains(k) && e[k] == element[k];
    });
    if (element.value("$patch", "") == "delete") {
      if (at != target.end()) target.erase(at);
    } else if (at != target.end()) {
      *at = merge_at(*at, element, path);
    } else {
      target.push_back(without_directives(element));
    }
  }
  return target;
}

json merge_at(json target, const json& patch, const std::string& path) {
  if (!patch.is_object()) return patch;
  if (patch.value("$patch", "") == "replace") return without_directives(patch);
  if (!target.is_object()) target = json::object();
  for (const auto& [k, v] : patch.items()) {
    if (is_directive(k)) continue;
    const std::string child = path.empty() ? k : path + "." + k;
    if (v.is_null()) {
      target.erase(k);
    } else if (v.is_array()) {
      target[k] = merge_list(target.contains(k) ? target[k] : json(), v, child);
    } else if (v.is_object()) {
      target[k] = merge_at(target.contains(k) ? target[k] : json(), v, child);
    } else {
      target[k] = v;
    }
  }
  return target;
}

}  // namespace

json strategic_merge(json target, const json& patch) {
  return merge_at(std::move(target), patch, "");
}

}  // namespace gantry::kube::testing
