#include "adapters/kube/sweep_job.hpp"

namespace gantry::kube {

namespace {

constexpr const char* kSweepLabel = "gantry.dev/sweep";

nlohmann::json labels(const SweepJobSpec& spec) {
  return {{kSweepLabel, spec.sweep_id}, {"app.kubernetes.io/managed-by", "gantry"}};
}

}  // namespace

std::string sweep_job_name(const std::string& sweep_id) { return "gantry-sweep-" + sweep_id; }

std::string sweep_secret_name(const std::string& sweep_id) {
  return sweep_job_name(sweep_id) + "-token";
}

nlohmann::json sweep_job_body(const SweepJobSpec& spec) {
  const nlohmann::json resources = {{"cpu", spec.cpu}, {"memory", spec.memory}};
  const nlohmann::json container = {
      {"name", "sweep-worker"},
      {"image", spec.image},
      {"command", {"gantry", "sweep-worker", "--sweep", spec.sweep_id, "--server", spec.server}},
      {"env",
       {{{"name", "GANTRY_TOKEN"},
         {"valueFrom",
          {{"secretKeyRef", {{"name", sweep_secret_name(spec.sweep_id)}, {"key", "token"}}}}}}}},
      {"resources", {{"requests", resources}, {"limits", resources}}},
      // A failed shard's last lines become its termination message, which `gantry sweep`
      // shows (a worker that cannot reach the server says so there).
      {"terminationMessagePolicy", "FallbackToLogsOnError"}};
  return {{"apiVersion", "batch/v1"},
          {"kind", "Job"},
          {"metadata",
           {{"name", sweep_job_name(spec.sweep_id)},
            {"namespace", spec.namespace_name},
            {"labels", labels(spec)}}},
          {"spec",
           {{"completionMode", "Indexed"},
            {"completions", spec.shards},
            {"parallelism", spec.parallelism},
            {"backoffLimitPerIndex", spec.backoff_limit_per_index},
            {"ttlSecondsAfterFinished", spec.ttl_seconds_after_finished},
            {"template",
             {{"metadata", {{"labels", labels(spec)}}},
              {"spec", {{"restartPolicy", "Never"}, {"containers", {container}}}}}}}}};
}

nlohmann::json sweep_secret_body(const SweepJobSpec& spec, const std::string& token,
                                 const std::string& job_uid) {
  nlohmann::json metadata = {{"name", sweep_secret_name(spec.sweep_id)},
                             {"namespace", spec.namespace_name},
                             {"labels", labels(spec)}};
  if (!job_uid.empty())
    metadata["ownerReferences"] = {{{"apiVersion", "batch/v1"},
                                    {"kind", "Job"},
                                    {"name", sweep_job_name(spec.sweep_id)},
                                    {"uid", job_uid}}};
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", std::move(metadata)},
          {"type", "Opaque"},
          {"stringData", {{"token", token}}}};
}

}  // namespace gantry::kube
