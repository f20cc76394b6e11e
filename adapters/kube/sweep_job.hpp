#pragma once
// The Kubernetes objects of a sweep run on a cluster (issue #25): one batch/v1 Job in Indexed
// completion mode whose pods are the sweep's shards (pod k runs shard k of
// sim/sweep/sweep_shards.hpp, reading k from JOB_COMPLETION_INDEX, which the Job controller
// sets), and a Secret holding the token the shards present to the coordinator.
//
// The Job: completions = shards, parallelism, backoffLimitPerIndex (a failed shard is retried
// alone, up to that many times), ttlSecondsAfterFinished (the cluster removes the finished Job
// and its pods), restartPolicy Never, CPU-only requests equal to limits (Guaranteed QoS: a
// shard's figures do not depend on its speed, but its deadline does), terminationMessagePolicy
// FallbackToLogsOnError (a failed shard's last output is its message). The container runs
// `gantry sweep-worker --sweep ID --server URL`, its token from the Secret (env GANTRY_TOKEN).
// Every object carries the label gantry.dev/sweep=ID, and app.kubernetes.io/managed-by=gantry.
//
// Pure functions; the bodies are validated against the v1.32 OpenAPI schemas with the others
// (tests/adapters/kube/openapi_bodies_test.cpp).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace gantry::kube {

struct SweepJobSpec {
  std::string namespace_name;
  std::string sweep_id;  // the coordinator's id: a DNS label
  std::string image;     // an image with `gantry` on its PATH
  std::string server;    // the coordinator's URL as the pods reach it
  int64_t shards = 1;
  int64_t parallelism = 1;
  int64_t backoff_limit_per_index = 3;
  int64_t ttl_seconds_after_finished = 86400;
  std::string cpu = "1";       // request and limit per shard
  std::string memory = "2Gi";  // request and limit per shard
};

// "gantry-sweep-<id>": the Job's name; the Secret's is the same with "-token".
std::string sweep_job_name(const std::string& sweep_id);
std::string sweep_secret_name(const std::string& sweep_id);

// The body of POST /apis/batch/v1/namespaces/{ns}/jobs.
nlohmann::json sweep_job_body(const SweepJobSpec& spec);

// The body of POST /api/v1/namespaces/{ns}/secrets: {"type":"Opaque","stringData":{"token"}},
// owned by the Job whose metadata.uid is `job_uid` (when not empty), so the garbage collector
// deletes it with the Job.
nlohmann::json sweep_secret_body(const SweepJobSpec& spec, const std::string& token,
                                 const std::string& job_uid = {});

}  // namespace gantry::kube
