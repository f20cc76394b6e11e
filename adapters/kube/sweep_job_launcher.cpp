#include "adapters/kube/sweep_job_launcher.hpp"

#include <fmt/format.h>

namespace gantry::kube {

namespace {

constexpr const char* kCompletionIndex = "batch.kubernetes.io/job-completion-index";

std::string jobs_path(const std::string& ns) { return "/apis/batch/v1/namespaces/" + ns + "/jobs"; }
std::string secrets_path(const std::string& ns) { return "/api/v1/namespaces/" + ns + "/secrets"; }

std::string string_at(const nlohmann::json& j, const nlohmann::json::json_pointer& p) {
  return j.contains(p) && j.at(p).is_string() ? j.at(p).get<std::string>() : std::string();
}

// Creates `object` in `collection`; a 403 is a SweepJobPermissionError naming the create verb.
WriteResult create_or_explain(KubeClient& client, const std::string& collection,
                              const nlohmann::json& object, const std::string& group,
                              const std::string& resource, const std::string& ns) {
  try {
    return client.create(collection, object);
  } catch (const KubeError& e) {
    if (e.code() == 403)
      throw SweepJobPermissionError(permission_message(e.status(), "create", group, resource, ns));
    throw;
  }
}

// The problem one pod shows, or empty.
std::string problem_of(const nlohmann::json& pod) {
  const nlohmann::json& status = pod.value("status", nlohmann::json::object());
  for (const nlohmann::json& c : status.value("containerStatuses", nlohmann::json::array())) {
    const nlohmann::json state = c.value("state", nlohmann::json::object());
    if (state.contains("waiting")) {
      const std::string reason = state["waiting"].value("reason", "");
      const std::string message = state["waiting"].value("message", "");
      if (reason == "ErrImagePull" || reason == "ImagePullBackOff" || reason == "InvalidImageName")
        return fmt::format("the image {} cannot be pulled ({}): {}", c.value("image", "?"), reason,
                           message);
      if (reason == "CreateContainerConfigError")
        return fmt::format("the container cannot be configured: {}", message);
    }
    if (state.contains("terminated")) {
      const int64_t code = state["terminated"].value("exitCode", int64_t{0});
      if (code != 0) {
        std::string message = state["terminated"].value("message", "");
        while (!message.empty() && (message.back() == '\n' || message.back() == ' '))
          message.pop_back();  // a log's tail ends with its last newline
        return fmt::format("the shard failed with exit code {}{}{}", code,
                           message.empty() ? "" : ": ", message);
      }
    }
  }
  for (const nlohmann::json& c : status.value("conditions", nlohmann::json::array()))
    if (c.value("type", "") == "PodScheduled" && c.value("status", "") == "False" &&
        c.value("reason", "") == "Unschedulable")
      return "the pod cannot be scheduled: " + c.value("message", std::string("(no message)"));
  return {};
}

}  // namespace

std::string permission_message(const KubeStatus& status, const std::string& verb,
                               const std::string& group, const std::string& resource,
                               const std::string& ns) {
  const std::string qualified = group.empty() ? resource : resource + "." + group;
  return fmt::format(
      "no permission to {} {} in namespace {}: a Role there needs apiGroups [\"{}\"], resources "
      "[\"{}\"], verbs [\"{}\"] (see README, \"Sweeps on Kubernetes\"). The API server said: {}",
      verb, qualified, ns, group, resource, verb, status.message);
}

LaunchedSweepJob launch_sweep_job(KubeClient& client, const SweepJobSpec& spec,
                                  const std::string& token) {
  const std::string& ns = spec.namespace_name;
  LaunchedSweepJob out;
  out.job_name = sweep_job_name(spec.sweep_id);
  const WriteResult job =
      create_or_explain(client, jobs_path(ns), sweep_job_body(spec), "batch", "jobs", ns);
  nlohmann::json created = job.object;
  if (job.outcome == WriteOutcome::kAlreadyExists) {
    out.reused = true;
    created = client.get(jobs_path(ns) + "/" + out.job_name);
  }
  out.job_uid = string_at(created, "/metadata/uid"_json_pointer);
  const WriteResult secret = create_or_explain(
      client, secrets_path(ns), sweep_secret_body(spec, token, out.job_uid), "", "secrets", ns);
  if (secret.outcome == WriteOutcome::kAlreadyExists) {
    // A retried launch: the Secret must hold this launch's token, or the shards cannot report.
    nlohmann::json current = client.get(secrets_path(ns) + "/" + sweep_secret_name(spec.sweep_id));
    nlohmann::json replacement = sweep_secret_body(spec, token, out.job_uid);
    replacement["metadata"]["resourceVersion"] = current["metadata"].value("resourceVersion", "");
    const WriteResult updated =
        client.update(secrets_path(ns) + "/" + sweep_secret_name(spec.sweep_id), replacement);
    if (updated.outcome != WriteOutcome::kOk)
      throw GantryError(fmt::format("cannot update Secret {}/{}: {}", ns,
                                    sweep_secret_name(spec.sweep_id), updated.status.message));
  }
  return out;
}

bool delete_sweep_job(KubeClient& client, const std::string& ns, const std::string& sweep_id) {
  DeleteOptions options;
  options.propagation_policy = "Background";
  try {
    const WriteResult r = client.remove(jobs_path(ns) + "/" + sweep_job_name(sweep_id), options);
    return r.outcome == WriteOutcome::kOk;
  } catch (const KubeError& e) {
    if (e.code() == 403)
      throw SweepJobPermissionError(permission_message(e.status(), "delete", "batch", "jobs", ns));
    throw;
  }
}

nlohmann::json list_sweep_pods(KubeClient& client, const std::string& ns,
                               const std::string& sweep_id) {
  return client.get("/api/v1/namespaces/" + ns + "/pods?labelSelector=gantry.dev%2Fsweep%3D" +
                    sweep_id);
}

std::vector<std::string> sweep_pod_problems(const nlohmann::json& pod_list) {
  std::vector<std::string> out;
  for (const nlohmann::json& pod : pod_list.value("items", nlohmann::json::array())) {
    const std::string problem = problem_of(pod);
    if (problem.empty()) continue;
    const nlohmann::json annotations = pod.value("metadata", nlohmann::json::object())
                                           .value("annotations", nlohmann::json::object());
    const std::string index = annotations.value(kCompletionIndex, "");
    out.push_back(fmt::format("pod {}{}: {}", string_at(pod, "/metadata/name"_json_pointer),
                              index.empty() ? "" : " (shard " + index + ")", problem));
  }
  return out;
}

}  // namespace gantry::kube
