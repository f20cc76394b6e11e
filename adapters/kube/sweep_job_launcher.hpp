#pragma once
// Puts a sweep's Job on a cluster and takes it off again (issue #25), with the same KubeClient
// the live adapter uses, and reads what the cluster says went wrong with it.
//
//   launch_sweep_job   creates the Job (sweep_job.hpp), then the token Secret owned by the Job
//                      (so the garbage collector deletes it with the Job). A Job already there
//                      under this sweep's name is reused (a retried launch), its Secret too.
//   delete_sweep_job   deletes the Job with propagationPolicy Background: its pods and the
//                      Secret go with it.
//   sweep_pod_problems what the Job's pods say is wrong, one line per pod: an image that cannot
//                      be pulled (the kubelet's waiting reason and message), a shard that
//                      failed (its exit code and the end of its output, the termination
//                      message), a pod the scheduler cannot place.
//
// A refusal for lack of permission (403) is a SweepJobPermissionError that names the RBAC verb,
// resource and namespace the user needs, with the server's own words; other API errors are
// KubeError, transport failures KubeTransportError (kube_client.hpp).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/sweep_job.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

class SweepJobPermissionError : public GantryError {
 public:
  using GantryError::GantryError;
};

// The message of a 403 on `verb` of `resource` (e.g. "jobs.batch") in `ns`: what the Role
// needs, and the server's message.
std::string permission_message(const KubeStatus& status, const std::string& verb,
                               const std::string& group, const std::string& resource,
                               const std::string& ns);

struct LaunchedSweepJob {
  std::string job_name;
  std::string job_uid;
  bool reused = false;  // the Job was there already
};

LaunchedSweepJob launch_sweep_job(KubeClient& client, const SweepJobSpec& spec,
                                  const std::string& token);

// True if a Job was deleted, false if there was none.
bool delete_sweep_job(KubeClient& client, const std::string& ns, const std::string& sweep_id);

// The pods of the sweep's Job (GET with labelSelector gantry.dev/sweep=ID).
nlohmann::json list_sweep_pods(KubeClient& client, const std::string& ns,
                               const std::string& sweep_id);

// One line per pod of `pod_list` (a PodList) with a problem, "pod NAME (shard K): ...", in the
// list's order; empty when none has one.
std::vector<std::string> sweep_pod_problems(const nlohmann::json& pod_list);

}  // namespace gantry::kube
