#include "tests/adapters/kube/fake_api_rules.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "adapters/kube/model/quantity.hpp"

namespace gantry::kube::testing {

namespace {

using nlohmann::json;

constexpr const char* kTokenMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr const char* kPreemptLowerPriority = "PreemptLowerPriority";

void set_default(json& object, const char* key, json value) {
  if (!object.contains(key) || object[key].is_null()) object[key] = std::move(value);
}

// pkg/apis/core/v1/defaults.go SetDefaults_Container, and its callers for ports and env.
void default_container(json& c) {
  set_default(c, "terminationMessagePath", "/dev/termination-log");
  set_default(c, "terminationMessagePolicy", "File");
  // An image without a tag (the part after the last '/' has no ':') or tagged latest, and not
  // pinned by digest, is pulled Always.
  const std::string image = c.value("image", "");
  const std::string last =
      image.substr(image.rfind('/') == std::string::npos ? 0 : image.rfind('/'));
  const size_t colon = last.find(':');
  const bool latest = image.find('@') == std::string::npos &&
                      (colon == std::string::npos || last.substr(colon + 1) == "latest");
  set_default(c, "imagePullPolicy", latest ? "Always" : "IfNotPresent");
  if (c.contains("ports") && c["ports"].is_array())
    for (json& p : c["ports"])
      if (p.is_object()) set_default(p, "protocol", "TCP");
  if (c.contains("env") && c["env"].is_array())
    for (json& e : c["env"])
      if (e.is_object() && e.contains("valueFrom") && e["valueFrom"].contains("fieldRef"))
        set_default(e["valueFrom"]["fieldRef"], "apiVersion", "v1");
  // SetDefaults_ResourceList's caller: a limit without a request requests the limit.
  if (c.contains("resources") && c["resources"].contains("limits")) {
    json& r = c["resources"];
    for (const auto& [k, v] : r["limits"].items())
      if (!r.contains("requests") || !r["requests"].contains(k)) r["requests"][k] = v;
  }
}

void default_volume(json& v) {
  for (const char* kind : {"configMap", "secret", "projected", "downwardAPI"})
    if (v.contains(kind) && v[kind].is_object()) set_default(v[kind], "defaultMode", 420);
}

std::vector<json*> containers_of(json& spec) {
  std::vector<json*> out;
  for (const char* list : {"initContainers", "containers"})
    if (spec.contains(list) && spec[list].is_array())
      for (json& c : spec[list])
        if (c.is_object()) out.push_back(&c);
  return out;
}

// plugin/pkg/admission/serviceaccount: the account and its projected token.
void mount_service_account(json& spec, const std::string& volume_suffix) {
  set_default(spec, "serviceAccountName", "default");
  spec["serviceAccount"] = spec["serviceAccountName"];
  if (spec.value("automountServiceAccountToken", true) == false) return;
  const std::string name = "kube-api-access-" + volume_suffix;
  bool mounted = false;
  for (json* c : containers_of(spec))
    if (c->contains("volumeMounts"))
      for (const json& m : (*c)["volumeMounts"])
        mounted = mounted || m.value("mountPath", "") == kTokenMountPath;
  if (mounted) return;
  spec["volumes"].push_back(
      {{"name", name},
       {"projected",
        {{"sources",
          {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
           {{"configMap",
             {{"name", "kube-root-ca.crt"}, {"items", {{{"key", "ca.crt"}, {"path", "ca.crt"}}}}}}},
           {{"downwardAPI",
             {{"items",
               {{{"path", "namespace"},
                 {"fieldRef", {{"apiVersion", "v1"}, {"fieldPath", "metadata.namespace"}}}}}}}}}}},
         {"defaultMode", 420}}}});
  for (json* c : containers_of(spec))
    (*c)["volumeMounts"].push_back(
        {{"name", name}, {"readOnly", true}, {"mountPath", kTokenMountPath}});
}

// plugin/pkg/admission/defaulttolerationseconds.
void add_default_tolerations(json& spec) {
  bool not_ready = false;
  bool unreachable = false;
  if (spec.contains("tolerations") && spec["tolerations"].is_array()) {
    for (const json& t : spec["tolerations"]) {
      const std::string key = t.value("key", "");
      const std::string effect = t.value("effect", "");
      const bool no_execute = effect.empty() || effect == "NoExecute";
      not_ready =
          not_ready || (no_execute && (key.empty() || key == "node.kubernetes.io/not-ready"));
      unreachable =
          unreachable || (no_execute && (key.empty() || key == "node.kubernetes.io/unreachable"));
    }
  }
  for (const auto& [tolerated, key] : {std::pair{not_ready, "node.kubernetes.io/not-ready"},
                                       std::pair{unreachable, "node.kubernetes.io/unreachable"}})
    if (!tolerated)
      spec["tolerations"].push_back({{"key", key},
                                     {"operator", "Exists"},
                                     {"effect", "NoExecute"},
                                     {"tolerationSeconds", 300}});
}

Refusal forbidden(const std::string& pod, const std::string& why) {
  return {403,
          "Forbidden",
          "pods \"" + pod + "\" is forbidden: " + why,
          {{"name", pod}, {"kind", "pods"}}};
}

// plugin/pkg/admission/priority: what the class says, or a refusal.
std::optional<Refusal> set_priority(json& pod, const PriorityClasses& classes) {
  json& spec = pod["spec"];
  const std::string name = pod["metadata"].value("name", "");
  int64_t priority = 0;
  std::string policy = kPreemptLowerPriority;
  const std::string class_name = spec.value("priorityClassName", "");
  if (class_name.empty()) {
    const json* chosen = nullptr;
    for (const auto& [n, c] : classes)
      if (c.value("globalDefault", false) &&
          (chosen == nullptr || c.value("value", 0) < chosen->value("value", 0)))
        chosen = &c;
    if (chosen != nullptr) {
      spec["priorityClassName"] = (*chosen)["metadata"]["name"];
      priority = chosen->value("value", 0);
      policy = chosen->value("preemptionPolicy", kPreemptLowerPriority);
    }
  } else {
    const auto it = classes.find(class_name);
    if (it == classes.end())
      return forbidden(name, "no PriorityClass with name " + class_name + " was found");
    priority = it->second.value("value", 0);
    policy = it->second.value("preemptionPolicy", kPreemptLowerPriority);
  }
  if (spec.contains("priority") && spec["priority"].is_number_integer() &&
      spec["priority"].get<int64_t>() != priority)
    return forbidden(name, "the integer value of priority (" + spec["priority"].dump() +
                               ") must not be provided in pod spec; priority admission "
                               "controller computed " +
                               std::to_string(priority) + " from the given PriorityClass name");
  if (spec.contains("preemptionPolicy") && spec["preemptionPolicy"].is_string() &&
      spec["preemptionPolicy"] != policy)
    return forbidden(name, "the string value of PreemptionPolicy (" +
                               spec["preemptionPolicy"].get<std::string>() +
                               ") must not be provided in pod spec; priority admission "
                               "controller computed " +
                               policy + " from the given PriorityClass name");
  spec["priority"] = priority;
  spec["preemptionPolicy"] = policy;
  return std::nullopt;
}

// Milli-units of cpu or memory, for comparing quantities written differently ("1" and
// "1000m").
std::optional<int64_t> milli(const json& q) {
  return q.is_string() ? parse_quantity(q.get<std::string>(), 1000) : std::nullopt;
}

}  // namespace

PriorityClasses system_priority_classes() {
  PriorityClasses out;
  const auto add = [&](const char* name, int64_t value, const char* description) {
    out[name] = {
        {"apiVersion", "scheduling.k8s.io/v1"}, {"kind", "PriorityClass"},
        {"metadata", {{"name", name}}},         {"value", value},
        {"description", description},           {"preemptionPolicy", kPreemptLowerPriority}};
  };
  add("system-cluster-critical", 2000000000,
      "Used for system critical pods that must run in the cluster, but can be moved to another "
      "node if necessary.");
  add("system-node-critical", 2000001000,
      "Used for system critical pods that must not be moved from their current node.");
  return out;
}

std::string qos_class(const json& spec) {
  // Sums over the containers of the cpu and memory requested and limited (positive values
  // only), and whether every container limits both.
  std::map<std::string, int64_t> requests;
  std::map<std::string, int64_t> limits;
  bool all_limit_both = true;
  const json& none = json::object();
  for (const char* list : {"initContainers", "containers"}) {
    if (!spec.contains(list) || !spec[list].is_array()) continue;
    for (const json& c : spec[list]) {
      const json& r = c.contains("resources") ? c["resources"] : none;
      int limited = 0;
      for (const char* k : {"cpu", "memory"}) {
        for (auto [field, sums] :
             {std::pair{"requests", &requests}, std::pair{"limits", &limits}}) {
          if (!r.contains(field) || !r[field].contains(k)) continue;
          const std::optional<int64_t> v = milli(r[field][k]);
          if (!v || *v <= 0) continue;
          (*sums)[k] += *v;
          if (sums == &limits) ++limited;
        }
      }
      all_limit_both = all_limit_both && limited == 2;
    }
  }
  if (requests.empty() && limits.empty()) return "BestEffort";
  bool guaranteed = all_limit_both && requests.size() == limits.size();
  for (const auto& [k, v] : requests) {
    const auto lim = limits.find(k);
    guaranteed = guaranteed && lim != limits.end() && lim->second == v;
  }
  return guaranteed ? "Guaranteed" : "Burstable";
}

void default_pod_spec(json& spec) {
  set_default(spec, "restartPolicy", "Always");
  set_default(spec, "terminationGracePeriodSeconds", 30);
  set_default(spec, "dnsPolicy", "ClusterFirst");
  set_default(spec, "securityContext", json::object());
  set_default(spec, "schedulerName", "default-scheduler");
  set_default(spec, "enableServiceLinks", true);
  for (json* c : containers_of(spec)) default_container(*c);
  if (spec.contains("volumes") && spec["volumes"].is_array())
    for (json& v : spec["volumes"])
      if (v.is_object()) default_volume(v);
}

std::variant<json, Refusal> admit_pod(json pod, const PriorityClasses& classes,
                                      const std::string& volume_suffix) {
  json& spec = pod["spec"];
  if (!spec.is_object()) spec = json::object();
  default_pod_spec(spec);
  mount_service_account(spec, volume_suffix);
  if (std::optional<Refusal> refused = set_priority(pod, classes)) return *refused;
  add_default_tolerations(spec);
  pod["status"] = {{"phase", "Pending"}, {"qosClass", qos_class(spec)}};
  return pod;
}

json admit_node(json node) {
  json& spec = node["spec"];
  if (!spec.is_object()) spec = json::object();
  bool tainted = false;
  if (spec.contains("taints") && spec["taints"].is_array())
    for (const json& t : spec["taints"])
      tainted = tainted || (t.value("key", "") == "node.kubernetes.io/not-ready" &&
                            t.value("effect", "") == "NoSchedule");
  if (!tainted)
    spec["taints"].push_back({{"key", "node.kubernetes.io/not-ready"}, {"effect", "NoSchedule"}});
  json& status = node["status"];
  if (!status.is_object()) status = json::object();
  set_default(status, "daemonEndpoints", {{"kubeletEndpoint", {{"Port", 0}}}});
  json& info = status["nodeInfo"];
  if (!info.is_object()) info = json::object();
  for (const char* k :
       {"machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion",
        "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"})
    set_default(info, k, "");
  return node;
}

json admit_priority_class(json priority_class) {
  set_default(priority_class, "preemptionPolicy", kPreemptLowerPriority);
  return priority_class;
}

json admit_namespace(json ns) {
  ns["metadata"]["labels"]["kubernetes.io/metadata.name"] = ns["metadata"]["name"];
  ns["spec"] = {{"finalizers", {"kubernetes"}}};
  ns["status"] = {{"phase", "Active"}};
  return ns;
}

int64_t pod_grace_period(const json& pod, const json& options) {
  int64_t period = 0;
  if (options.is_object() && options.contains("gracePeriodSeconds") &&
      options["gracePeriodSeconds"].is_number_integer()) {
    period = options["gracePeriodSeconds"].get<int64_t>();
  } else if (pod.contains("spec") &&
             pod["spec"].value("terminationGracePeriodSeconds", json()).is_number_integer()) {
    period = pod["spec"]["terminationGracePeriodSeconds"].get<int64_t>();
  }
  if (!pod.contains("spec") || pod["spec"].value("nodeName", "").empty()) period = 0;
  const std::string phase =
      pod.contains("status") ? pod["status"].value("phase", "") : std::string();
  if (phase == "Succeeded" || phase == "Failed") period = 0;
  if (period < 0) period = 1;
  return period;
}

}  // namespace gantry::kube::testing
