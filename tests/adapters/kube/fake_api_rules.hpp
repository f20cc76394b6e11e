#pragma once
// What kube-apiserver v1.24 (with its default admission plugins) adds to an object it creates,
// what it refuses, and how long a pod's deletion takes: the rules the fake API server
// (fake_api_server.hpp) follows where a real server differs from a plain object store. Each
// rule names the upstream code it follows; tests/adapters/kube/captures_test.cpp checks the
// results field by field against the real server's answers in tests/data/k8s-captures.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

namespace gantry::kube::testing {

// A request the server refuses: the Status it answers.
struct Refusal {
  int code = 0;
  std::string reason;
  std::string message;
  nlohmann::json details = nlohmann::json::object();
};

// PriorityClasses by name (the scheduling.k8s.io/v1 objects as stored).
using PriorityClasses = std::map<std::string, nlohmann::json>;

// The two classes every API server creates at start (pkg/apis/scheduling: SystemPriorityClasses).
PriorityClasses system_priority_classes();

// The defaults of pkg/apis/core/v1/defaults.go for a PodSpec (the first item below), which a
// Pod and the pod template of a Job alike get; no admission plugin runs on a template.
void default_pod_spec(nlohmann::json& spec);

// A Pod as the server stores it on create, or the refusal:
//  - defaults (pkg/apis/core/v1/defaults.go): spec.dnsPolicy ClusterFirst, restartPolicy Always,
//    terminationGracePeriodSeconds 30, securityContext {}, schedulerName default-scheduler,
//    enableServiceLinks true; per container (init containers too) terminationMessagePath
//    /dev/termination-log, terminationMessagePolicy File, imagePullPolicy (Always for an image
//    without a tag or tagged latest, else IfNotPresent), ports' protocol TCP, requests taken
//    from limits where absent, env fieldRef apiVersion v1; volumes' defaultMode 420;
//  - ServiceAccount admission: serviceAccountName (and the deprecated serviceAccount) default,
//    and unless automountServiceAccountToken is false the projected token volume
//    kube-api-access-<volume_suffix> mounted read-only in every container at
//    /var/run/secrets/kubernetes.io/serviceaccount (the capture's three sources);
//  - Priority admission (plugin/pkg/admission/priority): spec.priority and preemptionPolicy
//    computed from spec.priorityClassName, or from the globalDefault class (the lowest value
//    if several; its name is then written), or 0 and PreemptLowerPriority. 403 Forbidden for
//    an unknown class name ("no PriorityClass with name X was found") and for a spec.priority
//    or spec.preemptionPolicy that differs from the computed one;
//  - DefaultTolerationSeconds admission: tolerations of node.kubernetes.io/not-ready and
//    /unreachable (Exists, NoExecute, 300 s) unless the pod already tolerates them;
//  - the pod strategy's PrepareForCreate: status is {phase: Pending, qosClass}, whatever was
//    sent (qos_class below).
// Not done: managedFields, the ServiceAccount's existence (a real server refuses pods while the
// namespace's "default" ServiceAccount does not exist: the captured 403), validation.
std::variant<nlohmann::json, Refusal> admit_pod(nlohmann::json pod, const PriorityClasses& classes,
                                                const std::string& volume_suffix);

// The QoS class of a pod spec (pkg/apis/core/helper/qos GetPodQOS): BestEffort without any
// positive cpu or memory request or limit, Guaranteed when every container limits both and the
// requests, summed over the containers, equal the limits, else Burstable.
std::string qos_class(const nlohmann::json& spec);

// A Node as the server stores it on create: the TaintNodesByCondition admission adds the taint
// node.kubernetes.io/not-ready:NoSchedule (unless there), which the node lifecycle controller
// removes once the node is Ready; status.daemonEndpoints and every field of status.nodeInfo
// are written, zero-valued where not sent.
nlohmann::json admit_node(nlohmann::json node);

// A PriorityClass as stored: preemptionPolicy defaults to PreemptLowerPriority.
nlohmann::json admit_priority_class(nlohmann::json priority_class);

// The Namespace as stored: the label kubernetes.io/metadata.name, spec.finalizers
// [kubernetes], status.phase Active.
nlohmann::json admit_namespace(nlohmann::json ns);

// The grace period, in seconds, of a delete of `pod` with `options` (a DeleteOptions object,
// possibly empty), as pkg/registry/core/pod/strategy.go CheckGracefulDelete computes it: the
// options' gracePeriodSeconds, else the pod's spec.terminationGracePeriodSeconds, else 0;
// 0 when the pod is not bound (no spec.nodeName) or has ended (Succeeded, Failed); a
// negative value becomes 1. 0 deletes at once; otherwise the pod is marked (deletionTimestamp,
// deletionGracePeriodSeconds) until its kubelet deletes it with 0.
int64_t pod_grace_period(const nlohmann::json& pod, const nlohmann::json& options);

}  // namespace gantry::kube::testing
