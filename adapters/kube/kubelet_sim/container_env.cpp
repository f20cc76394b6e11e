#include "adapters/kube/kubelet_sim/container_env.hpp"

#include "adapters/kube/kube_config.hpp"

namespace gantry::kube {

namespace {

using nlohmann::json;

// metadata.annotations['k'] → ("annotations", "k"); nullopt for other paths.
std::optional<std::pair<std::string, std::string>> map_key(const std::string& path) {
  for (const char* map : {"annotations", "labels"}) {
    const std::string prefix = std::string("metadata.") + map + "['";
    if (path.rfind(prefix, 0) == 0 && path.size() > prefix.size() + 2 &&
        path.compare(path.size() - 2, 2, "']") == 0)
      return std::pair{std::string(map),
                       path.substr(prefix.size(), path.size() - prefix.size() - 2)};
  }
  return std::nullopt;
}

std::string text_at(const json& o, const char* a, const char* b) {
  const json inner = o.value(a, json::object());
  return inner.is_object() ? inner.value(b, "") : "";
}

// A secretKeyRef or configMapKeyRef: the value, nullopt for a missing optional one, or the
// kubelet's error (the variant's string).
std::variant<std::optional<std::string>, std::string> key_ref(const json& r, bool secret,
                                                              const std::string& ns,
                                                              const ObjectFetch& fetch) {
  const std::string kind = secret ? "Secret" : "ConfigMap";
  const std::string object = r.value("name", "");
  const std::string key = r.value("key", "");
  const bool optional = r.value("optional", false);
  const std::optional<json> found =
      fetch("/api/v1/namespaces/" + ns + "/" + (secret ? "secrets/" : "configmaps/") + object);
  if (!found) {
    if (optional) return std::optional<std::string>();
    return std::string(secret ? "secret" : "configmap") + " \"" + object + "\" not found";
  }
  const json data = found->value("data", json::object());
  if (!data.contains(key) || !data[key].is_string()) {
    if (optional) return std::optional<std::string>();
    return "couldn't find key " + key + " in " + kind + " " + ns + "/" + object;
  }
  if (!secret) return std::optional<std::string>(data[key].get<std::string>());
  const std::optional<std::string> decoded = decode_base64(data[key].get<std::string>());
  if (!decoded) return "secret \"" + object + "\": key " + key + " is not base64";
  return decoded;
}

}  // namespace

std::variant<std::map<std::string, std::string>, std::string> resolve_container_env(
    const json& pod, const json& container, const ObjectFetch& fetch) {
  std::map<std::string, std::string> env;
  const json& meta = pod.value("metadata", json::object());
  const std::string ns = meta.value("namespace", "");
  const std::string hostname = text_at(pod, "spec", "hostname");
  env["HOSTNAME"] = hostname.empty() ? meta.value("name", "") : hostname;
  for (const json& e : container.value("env", json::array())) {
    const std::string name = e.value("name", "");
    if (name.empty()) continue;
    if (!e.contains("valueFrom")) {
      env[name] = e.value("value", "");
      continue;
    }
    const json& from = e["valueFrom"];
    if (from.contains("secretKeyRef") || from.contains("configMapKeyRef")) {
      const bool secret = from.contains("secretKeyRef");
      auto value = key_ref(from[secret ? "secretKeyRef" : "configMapKeyRef"], secret, ns, fetch);
      if (const std::string* error = std::get_if<std::string>(&value)) return *error;
      if (auto& v = std::get<std::optional<std::string>>(value)) env[name] = *v;
      continue;
    }
    if (!from.contains("fieldRef"))
      return "env " + name + ": unsupported valueFrom (gantry kubelet-sim --exec)";
    const std::string path = from["fieldRef"].value("fieldPath", "");
    if (const auto mk = map_key(path)) {
      env[name] = meta.value(mk->first, json::object()).value(mk->second, "");
    } else if (path == "metadata.name" || path == "metadata.namespace" || path == "metadata.uid") {
      env[name] = meta.value(path.substr(9), "");
    } else if (path == "spec.nodeName" || path == "spec.serviceAccountName") {
      env[name] = text_at(pod, "spec", path.substr(5).c_str());
    } else {
      return "unsupported fieldPath " + path + " (gantry kubelet-sim --exec)";
    }
  }
  return env;
}

}  // namespace gantry::kube
