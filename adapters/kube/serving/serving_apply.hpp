#pragma once
// Create-or-update of a predictor's Deployment and Service (serving_objects.hpp), and the
// replica writes. Blocking calls on the Kubernetes client: run them on ApiWorkers.
//
// apply_*: POST the object; on 409 AlreadyExists read it (GET) and bring the fields Gantry owns
// up to date with a PUT carrying the resourceVersion read (a 409 Conflict — someone wrote in
// between — reads again, at most 5 tries):
//   Deployment  metadata.labels and .annotations (Gantry's keys; others kept), spec.selector,
//               spec.template; spec.replicas is kept as it is (the autoscaler owns it, and a
//               restarted Gantry carries on from what its predecessor set)
//   Service     metadata.labels, spec.selector, spec.ports; the rest (clusterIP, which cannot
//               change) kept
// When the object read already has every field Gantry would write (json_contains(): the
// server's defaults do not count as a difference), nothing is written: re-applying is
// idempotent and costs one GET.
//
// Errors: KubeError for an answer that is none of the above (403, 422, ...), KubeTransportError
// when there is no answer.

#include <nlohmann/json.hpp>
#include <string>

#include "adapters/kube/kube_client.hpp"

namespace gantry::kube {

enum class ApplyOutcome { kCreated, kUpdated, kUnchanged };
const char* to_string(ApplyOutcome outcome);

struct ApplyResult {
  ApplyOutcome outcome = ApplyOutcome::kCreated;
  nlohmann::json object;  // as stored
};

// "/apis/apps/v1/namespaces/<ns>/deployments", ".../services".
std::string deployments_path(const std::string& ns);
std::string services_path(const std::string& ns);

ApplyResult apply_deployment(KubeClient& client, const nlohmann::json& body);
ApplyResult apply_service(KubeClient& client, const nlohmann::json& body);

// PATCH (merge) {"spec":{"replicas":n}} of the Deployment: kOk, or kNotFound when it is gone.
WriteOutcome write_replicas(KubeClient& client, const std::string& ns, const std::string& name,
                            int replicas);

}  // namespace gantry::kube
