#pragma once
// What kube-controller-manager's Job controller writes for an Indexed Job (pkg/controller/job,
// v1.32): the pods of its indexes and the text form of index sets. Used by JobControllerSim
// (job_controller_sim.hpp), kubelet-sim's stand-in for that controller.
//
// Pure functions.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gantry::kube {

// The pod's completion index: annotation (v1.21+) and label (v1.28+, PodIndexLabel).
inline constexpr const char* kJobCompletionIndex = "batch.kubernetes.io/job-completion-index";
// The failures of the index before this pod (v1.28+, with backoffLimitPerIndex).
inline constexpr const char* kJobIndexFailureCount = "batch.kubernetes.io/job-index-failure-count";
inline constexpr const char* kJobCompletionIndexEnv = "JOB_COMPLETION_INDEX";

// `indexes` (sorted, distinct) as completedIndexes and failedIndexes are written
// (indexed_job_utils.go orderedIntervals.String): runs of three or more as "first-last", a run
// of two as "a,b": {0,1,2,4} → "0-2,4", {1,2} → "1,2", {} → "".
std::string index_intervals(const std::vector<int64_t>& indexes);

// The pod the Job controller creates for `index` of `job` (a Job as the API server stores it):
// the template with metadata.generateName "<job>-<index>-" (podGenerateNameWithIndex, cut to
// fit 58 characters), namespace, the annotation and label above (and the failure count when the
// Job has backoffLimitPerIndex), the env JOB_COMPLETION_INDEX from the annotation through a
// downward API fieldRef in every container and init container that lacks it
// (addCompletionIndexEnvVariables), spec.hostname "<job>-<index>" unless the template sets one,
// and an ownerReference to the Job with controller and blockOwnerDeletion true. Not written:
// the finalizer batch.kubernetes.io/job-tracking (the stand-in counts pods by uid instead).
nlohmann::json indexed_job_pod(const nlohmann::json& job, int64_t index, int64_t failures);

// The completion index of a pod, from its annotation; nullopt when absent or not a number.
std::optional<int64_t> completion_index(const nlohmann::json& pod);

}  // namespace gantry::kube
