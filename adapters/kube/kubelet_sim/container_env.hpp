#pragma once
// A container's environment as the kubelet computes it (pkg/kubelet/kubelet_pods.go
// makeEnvironmentVariables), for `gantry kubelet-sim --exec`: each env entry's value, or its
// valueFrom: secretKeyRef and configMapKeyRef (read through the API server; base64-decoded for a
// Secret), fieldRef metadata.name, metadata.namespace, metadata.uid, spec.nodeName,
// spec.serviceAccountName, metadata.annotations['KEY'], metadata.labels['KEY']; and HOSTNAME
// (spec.hostname, else the pod's name), which the container runtime sets. Later entries win.
// Not done: envFrom, resourceFieldRef, $(VAR) expansion, status.podIP and the service links.
//
// Errors: what the kubelet reports as the container's waiting reason CreateContainerConfigError,
// as its message: `secret "X" not found`, `couldn't find key K in Secret NS/X` (the same for
// ConfigMaps), or an unsupported fieldPath. An `optional: true` reference that is missing is
// left out.
//
// Thread-safety: a pure function; `fetch` is called on the caller's thread.

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

namespace gantry::kube {

// GETs an object by path ("/api/v1/namespaces/ns/secrets/x"); nullopt when it does not exist.
// Other failures throw (the caller reports them).
using ObjectFetch = std::function<std::optional<nlohmann::json>(const std::string& path)>;

std::variant<std::map<std::string, std::string>, std::string> resolve_container_env(
    const nlohmann::json& pod, const nlohmann::json& container, const ObjectFetch& fetch);

}  // namespace gantry::kube
