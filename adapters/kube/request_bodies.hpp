#pragma once
// The JSON bodies Gantry sends to the API server, built in one place so that a test can
// validate every one of them against the v1.32 OpenAPI schemas
// (tests/adapters/kube/openapi_bodies_test).
//
// Kinds: core/v1 Binding (POST pods/{name}/binding), meta/v1 DeleteOptions (DELETE, with
// preconditions), policy/v1 Eviction (POST pods/{name}/eviction), events.k8s.io/v1 Event,
// coordination.k8s.io/v1 Lease, core/v1 ConfigMap (an elastic job's host list), the new pods of
// a scale-out (resize_pod_body), node merge patches (cordon, annotations), core/v1 Namespace and
// ServiceAccount (`gantry kube setup`). Times are written as
// the API wants them: Lease and Event times are MicroTime ("2026-01-01T00:00:00.000000Z").
//
// Thread-safety: pure functions.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/core/time.hpp"

namespace gantry::kube {

// RFC 3339 in UTC with exactly six fractional digits (metav1.MicroTime's wire form).
std::string format_micro_time(Time t);
// Parses what the API server writes for Time and MicroTime ("...Z", with or without a
// fraction); nullopt when malformed.
std::optional<Time> parse_kube_time(const std::string& text);

// {"apiVersion":"v1","kind":"Binding","metadata":{"name":pod,"namespace":ns[,"uid":uid]},
//  "target":{"apiVersion":"v1","kind":"Node","name":node}} — the body of
// POST /api/v1/namespaces/{ns}/pods/{pod}/binding. A non-empty `pod_uid` makes the server
// refuse the binding if the pod was deleted and recreated under the same name. `annotations`
// are copied onto the pod by the server as it binds it (the binding REST handler of
// kube-apiserver sets them with spec.nodeName, in one write): how the GPUs chosen reach the
// pod without a request of their own.
nlohmann::json binding_body(const std::string& ns, const std::string& pod, const std::string& node,
                            const std::string& pod_uid = {},
                            const std::map<std::string, std::string>& annotations = {});

struct DeleteOptions {
  std::string uid;               // precondition: delete only this incarnation (409 otherwise)
  std::string resource_version;  // precondition: delete only this version (409 otherwise)
  std::optional<int64_t> grace_period_seconds;
  std::string propagation_policy;  // "Foreground", "Background", "Orphan" or empty
};
// {"apiVersion":"v1","kind":"DeleteOptions",...}; preconditions only when set.
nlohmann::json delete_options_body(const DeleteOptions& options);

// {"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":pod,"namespace":ns},
//  "deleteOptions":{"preconditions":{"uid":uid}}} — the body of
// POST /api/v1/namespaces/{ns}/pods/{pod}/eviction. The API server checks the pod's
// PodDisruptionBudgets (429 when one forbids it now) and then deletes the pod with these options;
// a non-empty `pod_uid` makes it refuse (409) when the pod of that name is another incarnation.
// The nested DeleteOptions carry no apiVersion or kind (the Eviction's are the object's).
nlohmann::json eviction_body(const std::string& ns, const std::string& pod,
                             const std::string& pod_uid = {});

// The object an Event is about.
struct ObjectReference {
  std::string api_version = "v1";
  std::string kind = "Pod";
  std::string namespace_name;
  std::string name;
  std::string uid;
};

struct EventSpec {
  ObjectReference regarding;
  std::string type = "Normal";  // "Normal" or "Warning"
  std::string reason;           // "Scheduled", "FailedScheduling", ... (CamelCase)
  std::string action;           // "Binding", "Scheduling", ... (required by the API)
  std::string note;             // human text, at most 1 KiB (longer is cut)
  std::string reporting_controller = "gantry.dev/scheduler";
  std::string reporting_instance;  // this replica's identity
  Time event_time;
  std::string name;  // empty: "<regarding.name>.<event_time µs in hex>", as client-go names them
};
// An events.k8s.io/v1 Event in regarding.namespace_name (or "default" when empty).
nlohmann::json event_body(const EventSpec& spec);

struct LeaseSpec {
  std::string namespace_name;
  std::string name;
  std::string holder_identity;  // empty: released
  int64_t lease_duration_seconds = 15;
  std::optional<Time> acquire_time;
  std::optional<Time> renew_time;
  int64_t lease_transitions = 0;
  std::string resource_version;  // empty for a create; the version read, for an update
};
nlohmann::json lease_body(const LeaseSpec& spec);

// {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name","namespace"[,"labels"]},"data":data}
// — created by POST, replaced by PUT (no resourceVersion: an unconditional update, which
// ConfigMaps allow).
nlohmann::json config_map_body(const std::string& ns, const std::string& name,
                               const std::map<std::string, std::string>& data,
                               const std::map<std::string, std::string>& labels = {});

// A new pod made from `pod_template` (a Pod object as read): the same labels, annotations and
// spec, named `name`, with `annotations` set over the template's; what the API server or a
// scheduler wrote is dropped (uid, resourceVersion, creationTimestamp, deletionTimestamp,
// generation, managedFields, generateName, spec.nodeName, the gantry.dev/gpu-index annotation,
// status): the body of POST /api/v1/namespaces/{ns}/pods for an elastic gang's new Worker.
nlohmann::json resize_pod_body(const nlohmann::json& pod_template, const std::string& name,
                               const std::map<std::string, std::string>& annotations);

// What `gantry kube setup` creates where a plain API server lacks it (no controller-manager):
// a Namespace, and the ServiceAccount `default` of a namespace (the ServiceAccount controller's
// job, without which pods are refused: "error looking up service account"). Both labelled
// app.kubernetes.io/managed-by=gantry, so one can see who made them.
nlohmann::json namespace_body(const std::string& name);
nlohmann::json service_account_body(const std::string& ns, const std::string& name);

// {"spec":{"unschedulable":true|false}}: the merge patch of a cordon (uncordon).
nlohmann::json cordon_patch(bool unschedulable);

// {"metadata":{"annotations":{...}}}: the merge patch setting an object's annotations (a
// drain's request and state, model/kube_node.hpp); the others are left as they are.
nlohmann::json annotations_patch(const std::map<std::string, std::string>& annotations);

}  // namespace gantry::kube
