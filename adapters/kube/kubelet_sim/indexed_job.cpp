#include "adapters/kube/kubelet_sim/indexed_job.hpp"

#include <charconv>

namespace gantry::kube {

using nlohmann::json;

std::string index_intervals(const std::vector<int64_t>& indexes) {
  std::string out;
  for (size_t i = 0; i < indexes.size();) {
    size_t j = i;
    while (j + 1 < indexes.size() && indexes[j + 1] == indexes[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += std::to_string(indexes[i]);
    if (j == i + 1) {
      out += ',' + std::to_string(indexes[j]);
    } else if (j > i + 1) {
      out += '-' + std::to_string(indexes[j]);
    }
    i = j + 1;
  }
  return out;
}

json indexed_job_pod(const json& job, int64_t index, int64_t failures) {
  const json& meta = job.at("metadata");
  const std::string name = meta.value("name", "");
  const std::string ix = std::to_string(index);
  json template_spec = job.at("spec").value("template", json::object());
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  pod["metadata"] = template_spec.value("metadata", json::object());
  pod["spec"] = template_spec.value("spec", json::object());
  // podGenerateNameWithIndex: names.MaxGeneratedNameLength is 63 - 5 random characters.
  const std::string suffix = "-" + ix + "-";
  std::string prefix = name + suffix;
  if (prefix.size() > 58) prefix = prefix.substr(0, 58 - suffix.size()) + suffix;
  json& m = pod["metadata"];
  m.erase("name");
  m["generateName"] = prefix;
  m["namespace"] = meta.value("namespace", "");
  m["annotations"][kJobCompletionIndex] = ix;
  m["labels"][kJobCompletionIndex] = ix;
  if (job["spec"].contains("backoffLimitPerIndex") &&
      !job["spec"]["backoffLimitPerIndex"].is_null())
    m["annotations"][kJobIndexFailureCount] = std::to_string(failures);
  m["ownerReferences"] = {{{"apiVersion", "batch/v1"},
                           {"kind", "Job"},
                           {"name", name},
                           {"uid", meta.value("uid", "")},
                           {"controller", true},
                           {"blockOwnerDeletion", true}}};
  json& spec = pod["spec"];
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (json& c : spec[list]) {
      json& env = c["env"];
      if (!env.is_array()) env = json::array();
      bool has = false;
      for (const json& e : env) has = has || e.value("name", "") == kJobCompletionIndexEnv;
      if (!has)
        env.push_back({{"name", kJobCompletionIndexEnv},
                       {"valueFrom",
                        {{"fieldRef",
                          {{"apiVersion", "v1"},
                           {"fieldPath", std::string("metadata.annotations['") +
                                             kJobCompletionIndex + "']"}}}}}});
    }
  }
  if (spec.value("hostname", "").empty()) spec["hostname"] = name + "-" + ix;
  return pod;
}

std::optional<int64_t> completion_index(const json& pod) {
  const json annotations =
      pod.value("metadata", json::object()).value("annotations", json::object());
  if (!annotations.contains(kJobCompletionIndex) || !annotations[kJobCompletionIndex].is_string())
    return std::nullopt;
  const std::string v = annotations[kJobCompletionIndex];
  int64_t out = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || end != v.data() + v.size() || out < 0) return std::nullopt;
  return out;
}

}  // namespace gantry::kube
