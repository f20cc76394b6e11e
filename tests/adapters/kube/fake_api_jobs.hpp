#pragma once
// What kube-apiserver v1.32 adds to and refuses in the batch/v1 Jobs and core/v1 Secrets a
// client writes: the rules the fake API server (fake_api_server.hpp) follows for them. There is
// no capture of a real Job response (tests/data/k8s-captures has none), so each rule names the
// upstream source it follows; where v1.32 differs from v1.24 (the first release of the captures)
// the comment says which version a default comes from. fake_api_jobs_test.cpp checks the
// results field by field, with a table of the sources.
//
// Thread-safety: pure functions.

#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "tests/adapters/kube/fake_api_rules.hpp"

namespace gantry::kube::testing {

// The labels generateSelector writes (k8s.io/api/batch/v1 types.go; the prefixed ones v1.27+).
inline constexpr const char* kJobControllerUidLabel = "batch.kubernetes.io/controller-uid";
inline constexpr const char* kJobNameLabel = "batch.kubernetes.io/job-name";
inline constexpr const char* kLegacyControllerUidLabel = "controller-uid";
inline constexpr const char* kLegacyJobNameLabel = "job-name";

// A Job as the server stores it on create (POST), given the uid it is about to get, or the
// 422 Invalid it answers (a Status naming `Job.batch "NAME"` with one cause per field, as
// apierrors.NewInvalid writes it):
//  - SetDefaults_Job (pkg/apis/batch/v1/defaults.go): parallelism 1 (and completions 1 when
//    both are absent), backoffLimit 6 (v1.28+: 2147483647 when backoffLimitPerIndex is set),
//    completionMode NonIndexed, suspend false, manualSelector false (v1.27+),
//    podReplacementPolicy TerminatingOrFailed (v1.29+, Failed with a podFailurePolicy), and
//    metadata.labels = the template's labels when the Job has none (the same Go map: the
//    generated labels below land in both);
//  - the template's PodSpec defaults (default_pod_spec(), pkg/apis/core/v1/defaults.go);
//  - the strategy (pkg/registry/batch/job/strategy.go): status {}, metadata.generation 1, and
//    unless manualSelector, generateSelector: template labels batch.kubernetes.io/controller-uid,
//    batch.kubernetes.io/job-name and the legacy controller-uid, job-name (v1.27+: both), the
//    selector matchLabels {batch.kubernetes.io/controller-uid: uid};
//  - validation (pkg/apis/batch/validation/validation.go ValidateJob): metadata.name a DNS
//    subdomain whose job-name label value fits 63 characters, non-negative counts,
//    completionMode NonIndexed or Indexed, completions required when Indexed, parallelism at
//    most 100000 when Indexed, backoffLimitPerIndex and maxFailedIndexes only when Indexed
//    (Invalid: "requires indexed completion mode"), maxFailedIndexes needs backoffLimitPerIndex,
//    template.spec.restartPolicy OnFailure or Never (Required when absent or Always), at
//    least one container, each with a name and an image.
// Not done: managedFields, successPolicy and podFailurePolicy validation beyond presence, the
// ttl and activeDeadline controllers.
std::variant<nlohmann::json, Refusal> admit_job(nlohmann::json job, const std::string& uid);

// A PUT of a Job over `old`: the defaults again, then ValidateJobSpecUpdate's immutable fields
// (spec.selector, spec.template, spec.completionMode, spec.backoffLimitPerIndex, and
// spec.completions outside elastic Indexed scaling: 422 "field is immutable"), the strategy's
// PrepareForUpdate (status kept from `old`, generation + 1 when the spec changed). A v1.32
// server lets a suspended Job that never started change its template's scheduling directives;
// the fake does not.
std::variant<nlohmann::json, Refusal> update_job(nlohmann::json job, const nlohmann::json& old);

// A Secret as stored (pkg/apis/core/v1 conversion and the secret strategy): each stringData
// key base64-encoded into data (over a data key of the same name), stringData dropped, type
// Opaque when absent; 422 for a key that is not a valid config key ([-._a-zA-Z0-9]+).
std::variant<nlohmann::json, Refusal> admit_secret(nlohmann::json secret);

}  // namespace gantry::kube::testing
