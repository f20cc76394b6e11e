#pragma once
// The strategic merge patch of kube-apiserver (application/strategic-merge-patch+json), for the
// fake API server: what a real server does with such a patch of a built-in kind, for the lists
// Gantry and kubelet-sim write.
//
// Like a JSON merge patch (RFC 7386: objects merge key by key, null deletes a key), except for
// lists whose Go type carries `patchStrategy:"merge"`: those merge element by element on their
// merge key (an element of the patch replaces nothing else; it merges into the element with the
// same key, or is appended), and an element {"$patch":"delete", <key>: v} removes that element.
// A map holding {"$patch":"replace"} replaces the whole map; other "$" directives
// ($setElementOrder/..., $retainKeys, $deleteFromPrimitiveList/...) are dropped, which only
// matters for the order of elements and for lists of scalars, neither of which Gantry writes.
//
// The lists that merge (k8s.io/api/core/v1/types.go, apps/v1, meta/v1), by their dotted path
// from the object's root, pod templates included:
//   metadata.ownerReferences (uid), metadata.finalizers (a set of strings),
//   status.conditions (type) — Pod, Node and Deployment conditions alike,
//   status.addresses (type) of a Node,
//   [spec.template.]spec.containers / initContainers (name), .volumes (name),
//   and in a container: env (name), ports (containerPort), volumeMounts (mountPath).
// Every other list is replaced whole (spec.taints, spec.tolerations, containerStatuses, ...).
//
// Thread-safety: pure functions.

#include <nlohmann/json.hpp>

namespace gantry::kube::testing {

// Applies `patch` to `target` (both objects); returns the result.
nlohmann::json strategic_merge(nlohmann::json target, const nlohmann::json& patch);

}  // namespace gantry::kube::testing
