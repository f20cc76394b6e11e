#include "adapters/kube/request_bodies.hpp"

#include <cstdio>

namespace gantry::kube {

std::string format_micro_time(Time t) {
  // format_rfc3339 trims the fraction; MicroTime wants exactly six digits.
  const int64_t fraction = ((t.micros() % 1'000'000) + 1'000'000) % 1'000'000;
  std::string text = format_rfc3339(Time::from_micros(t.micros() - fraction));  // "...:SSZ"
  char digits[16];
  std::snprintf(digits, sizeof digits, ".%06lld", static_cast<long long>(fraction));
  text.insert(text.size() - 1, digits);
  return text;
}

std::optional<Time> parse_kube_time(const std::string& text) {
  Time t;
  if (!parse_rfc3339(text, t)) return std::nullopt;
  return t;
}

nlohmann::json binding_body(const std::string& ns, const std::string& pod, const std::string& node,
                            const std::string& pod_uid,
                            const std::map<std::string, std::string>& annotations) {
  nlohmann::json metadata = {{"name", pod}, {"namespace", ns}};
  if (!pod_uid.empty()) metadata["uid"] = pod_uid;
  if (!annotations.empty()) metadata["annotations"] = annotations;
  return {{"apiVersion", "v1"},
          {"kind", "Binding"},
          {"metadata", std::move(metadata)},
          {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", node}}}};
}

nlohmann::json delete_options_body(const DeleteOptions& options) {
  nlohmann::json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  nlohmann::json preconditions = nlohmann::json::object();
  if (!options.uid.empty()) preconditions["uid"] = options.uid;
  if (!options.resource_version.empty())
    preconditions["resourceVersion"] = options.resource_version;
  if (!preconditions.empty()) body["preconditions"] = std::move(preconditions);
  if (options.grace_period_seconds) body["gracePeriodSeconds"] = *options.grace_period_seconds;
  if (!options.propagation_policy.empty()) body["propagationPolicy"] = options.propagation_policy;
  return body;
}

nlohmann::json eviction_body(const std::string& ns, const std::string& pod,
                             const std::string& pod_uid) {
  nlohmann::json body = {{"apiVersion", "policy/v1"},
                         {"kind", "Eviction"},
                         {"metadata", {{"name", pod}, {"namespace", ns}}}};
  if (!pod_uid.empty()) body["deleteOptions"] = {{"preconditions", {{"uid", pod_uid}}}};
  return body;
}

nlohmann::json event_body(const EventSpec& spec) {
  const std::string ns =
      spec.regarding.namespace_name.empty() ? "default" : spec.regarding.namespace_name;
  std::string name = spec.name;
  if (name.empty()) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "%llx",
                  static_cast<unsigned long long>(spec.event_time.micros()));
    name = spec.regarding.name + "." + hex;
  }
  nlohmann::json regarding = {{"apiVersion", spec.regarding.api_version},
                              {"kind", spec.regarding.kind},
                              {"name", spec.regarding.name}};
  if (!spec.regarding.namespace_name.empty())
    regarding["namespace"] = spec.regarding.namespace_name;
  if (!spec.regarding.uid.empty()) regarding["uid"] = spec.regarding.uid;
  nlohmann::json body = {{"apiVersion", "events.k8s.io/v1"},
                         {"kind", "Event"},
                         {"metadata", {{"name", name}, {"namespace", ns}}},
                         {"eventTime", format_micro_time(spec.event_time)},
                         {"reportingController", spec.reporting_controller},
                         {"reportingInstance", spec.reporting_instance},
                         {"action", spec.action},
                         {"reason", spec.reason},
                         {"type", spec.type},
                         {"regarding", std::move(regarding)}};
  if (!spec.note.empty()) body["note"] = spec.note.substr(0, 1024);
  return body;
}

nlohmann::json lease_body(const LeaseSpec& spec) {
  nlohmann::json metadata = {{"name", spec.name}, {"namespace", spec.namespace_name}};
  if (!spec.resource_version.empty()) metadata["resourceVersion"] = spec.resource_version;
  nlohmann::json lease_spec = {{"holderIdentity", spec.holder_identity},
                               {"leaseDurationSeconds", spec.lease_duration_seconds},
                               {"leaseTransitions", spec.lease_transitions}};
  if (spec.acquire_time) lease_spec["acquireTime"] = format_micro_time(*spec.acquire_time);
  if (spec.renew_time) lease_spec["renewTime"] = format_micro_time(*spec.renew_time);
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", std::move(metadata)},
          {"spec", std::move(lease_spec)}};
}

nlohmann::json config_map_body(const std::string& ns, const std::string& name,
                               const std::map<std::string, std::string>& data,
                               const std::map<std::string, std::string>& labels) {
  nlohmann::json metadata = {{"name", name}, {"namespace", ns}};
  if (!labels.empty()) metadata["labels"] = labels;
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", std::move(metadata)},
          {"data", data}};
}

nlohmann::json resize_pod_body(const nlohmann::json& pod_template, const std::string& name,
                               const std::map<std::string, std::string>& annotations) {
  nlohmann::json pod = pod_template;
  pod["apiVersion"] = "v1";
  pod["kind"] = "Pod";
  nlohmann::json& metadata = pod["metadata"];
  for (const char* key :
       {"uid", "resourceVersion", "creationTimestamp", "deletionTimestamp",
        "deletionGracePeriodSeconds", "generation", "managedFields", "generateName", "selfLink"})
    metadata.erase(key);
  metadata["name"] = name;
  if (!metadata.contains("annotations") || !metadata["annotations"].is_object())
    metadata["annotations"] = nlohmann::json::object();
  metadata["annotations"].erase("gantry.dev/gpu-index");
  for (const auto& [k, v] : annotations) metadata["annotations"][k] = v;
  if (pod.contains("spec") && pod["spec"].is_object()) pod["spec"].erase("nodeName");
  pod.erase("status");
  return pod;
}

nlohmann::json namespace_body(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Namespace"},
          {"metadata", {{"name", name}, {"labels", {{"app.kubernetes.io/managed-by", "gantry"}}}}}};
}

nlohmann::json service_account_body(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ServiceAccount"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels", {{"app.kubernetes.io/managed-by", "gantry"}}}}}};
}

nlohmann::json cordon_patch(bool unschedulable) {
  return {{"spec", {{"unschedulable", unschedulable}}}};
}

nlohmann::json annotations_patch(const std::map<std::string, std::string>& annotations) {
  return {{"metadata", {{"annotations", annotations}}}};
}

}  // namespace gantry::kube
