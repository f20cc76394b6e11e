#include "adapters/kube/serving/serving_apply.hpp"

#include "adapters/kube/serving/serving_objects.hpp"

namespace gantry::kube {

namespace {

using json = nlohmann::json;

constexpr int kTries = 5;

// What Gantry wants of `existing`, given the body it would create: `existing` with Gantry's
// fields replaced.
using Merge = json (*)(const json& existing, const json& body);

json merge_metadata(const json& existing, const json& body) {
  json out = existing;
  for (const char* map : {"labels", "annotations"}) {
    if (!body["metadata"].contains(map)) continue;
    if (!out["metadata"].contains(map) || !out["metadata"][map].is_object())
      out["metadata"][map] = json::object();
    for (const auto& [k, v] : body["metadata"][map].items()) out["metadata"][map][k] = v;
  }
  return out;
}

json merge_deployment(const json& existing, const json& body) {
  json out = merge_metadata(existing, body);
  out["spec"]["selector"] = body["spec"]["selector"];
  out["spec"]["template"] = body["spec"]["template"];
  return out;
}

json merge_service(const json& existing, const json& body) {
  json out = merge_metadata(existing, body);
  out["spec"]["selector"] = body["spec"]["selector"];
  out["spec"]["ports"] = body["spec"]["ports"];
  return out;
}

// The fields of `body` Gantry owns, for the no-change test.
json owned_deployment(const json& body) {
  json out = {{"metadata",
               {{"labels", body["metadata"].value("labels", json::object())},
                {"annotations", body["metadata"].value("annotations", json::object())}}},
              {"spec", {{"selector", body["spec"]["selector"]}}}};
  out["spec"]["template"] = body["spec"]["template"];
  return out;
}

json owned_service(const json& body) {
  return {{"metadata", {{"labels", body["metadata"].value("labels", json::object())}}},
          {"spec", {{"selector", body["spec"]["selector"]}, {"ports", body["spec"]["ports"]}}}};
}

ApplyResult apply(KubeClient& client, const std::string& collection, const json& body, Merge merge,
                  json (*owned)(const json&)) {
  const std::string name = body["metadata"]["name"].get<std::string>();
  const std::string path = collection + "/" + name;
  WriteResult created = client.create(collection, body);
  if (created.outcome == WriteOutcome::kOk) return {ApplyOutcome::kCreated, created.object};
  const json wanted = owned(body);
  for (int attempt = 1;; ++attempt) {
    const json existing = client.get(path);
    if (json_contains(existing, wanted)) return {ApplyOutcome::kUnchanged, existing};
    json update = merge(existing, body);
    WriteResult r = client.update(path, update);
    if (r.outcome == WriteOutcome::kOk) return {ApplyOutcome::kUpdated, r.object};
    if (r.outcome == WriteOutcome::kNotFound) {
      // Deleted between the read and the write: create it after all.
      created = client.create(collection, body);
      if (created.outcome == WriteOutcome::kOk) return {ApplyOutcome::kCreated, created.object};
    }
    if (attempt >= kTries) throw KubeError(r.status);
  }
}

}  // namespace

const char* to_string(ApplyOutcome outcome) {
  switch (outcome) {
    case ApplyOutcome::kCreated:
      return "created";
    case ApplyOutcome::kUpdated:
      return "updated";
    case ApplyOutcome::kUnchanged:
      return "unchanged";
  }
  return "?";
}

std::string deployments_path(const std::string& ns) {
  return "/apis/apps/v1/namespaces/" + ns + "/deployments";
}

std::string services_path(const std::string& ns) {
  return "/api/v1/namespaces/" + ns + "/services";
}

ApplyResult apply_deployment(KubeClient& client, const nlohmann::json& body) {
  return apply(client, deployments_path(body["metadata"]["namespace"].get<std::string>()), body,
               &merge_deployment, &owned_deployment);
}

ApplyResult apply_service(KubeClient& client, const nlohmann::json& body) {
  return apply(client, services_path(body["metadata"]["namespace"].get<std::string>()), body,
               &merge_service, &owned_service);
}

WriteOutcome write_replicas(KubeClient& client, const std::string& ns, const std::string& name,
                            int replicas) {
  const std::string path = deployments_path(ns) + "/" + name;
  const KubeResponse r = client.request("PATCH", path, replicas_patch(replicas).dump(),
                                        content_type_of(PatchType::kMerge));
  if (r.status == 404) return WriteOutcome::kNotFound;
  if (r.status < 200 || r.status >= 300) {
    const auto it = r.headers.find("retry-after");
    throw KubeError(parse_status(r.status, r.body, it == r.headers.end() ? "" : it->second));
  }
  return WriteOutcome::kOk;
}

}  // namespace gantry::kube
