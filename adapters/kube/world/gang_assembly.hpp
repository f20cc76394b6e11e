#pragma once
// Pods that Gantry's scheduler places, gathered into gangs (adapters/kube/README.md, "Gangs").
//
// A gang is named by its namespace and the pod's gantry.dev/gang label (or its controller
// owner's uid, or the pod alone); it is complete when as many unbound pods of it are waiting as
// its gantry.dev/gang-size annotation says (a gang without a size: the pods waiting now). Its
// pods are in gang order: the annotation gantry.dev/gang-index when every pod has one (how the
// simulator numbers a job's pods: role by role, replica by replica), else by name.
//
// The scheduler places a gang as one JobSpec (gang_job_spec): a role per run of consecutive pods
// of one kind with one request, replicas the run's length (the pod's role from the training
// operator's label training.kubeflow.org/replica-type when present, else Worker), so pod i of
// the gang is pod i of the JobSpec and an elastic gang's trailing Workers are its elastic role
// (engine/policy/actions.hpp: Worker i is pod F + i, F the pods of the fixed roles); the
// elasticity its pods' annotations give (gantry.dev/elastic-min, -max, -step, resize-cost,
// restart-policy: kube_pod.hpp), the highest priority of its pods (spec.priority, which
// the API server resolves from priorityClassName), the admission queue its pods name (label
// gantry.dev/queue), and the first pod's nodeSelector and tolerations (the controllers that make
// gangs give all pods the same).
//
// A gang whose pods disagree on their elasticity annotations, or an elastic one whose last pods
// are not Workers, is refused (gang_refusal()), admission or not.
//
// With admission queues on, a gang must name one configured queue, all its pods the same: a
// gang that names none, an unknown one or several is refused rather than guessed at
// (gang_refusal() says why; the live scheduler records it as an Event on the pods and does not
// submit the gang). Without admission the label means nothing and is not checked.
//
// Not thread-safe: the event loop's thread.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kube/model/kube_pod.hpp"
#include "engine/cluster/job.hpp"
#include "engine/policy/queues/admission_config.hpp"

namespace gantry::kube {

// The gang a pod belongs to: "<namespace>/<gang>", or "<namespace>/<pod name>" alone.
std::string gang_key(const KubePod& pod);

struct Gang {
  std::string key;
  int32_t size = 1;                     // pods it needs; 0: the pods waiting
  std::map<std::string, KubePod> pods;  // waiting pods by name
  bool complete() const {
    return size == 0 ? !pods.empty() : pods.size() == static_cast<size_t>(size);
  }
  // The pods in gang order (see above).
  std::vector<const KubePod*> ordered() const;
};

// The JobSpec of a complete gang, submitted at `now`. Its queue is the one its pods name ("" when
// they name none or disagree: see gang_refusal()).
JobSpec gang_job_spec(const Gang& gang, Time now);

// Why a complete gang cannot be submitted, or nullopt: its pods name different queues; with
// `admission` (its queues) on, the gang names no queue or one that is not configured.
std::optional<std::string> gang_refusal(const Gang& gang, const AdmissionConfig& admission);

// A Worker's index in its gang (as in <job>-worker-<i>): from the pod's name
// "<gang>-worker-<i>" when it has that form, else its gantry.dev/gang-index minus `fixed` (the
// pods of the gang's fixed roles); nullopt when neither says.
std::optional<int32_t> worker_index(const KubePod& pod, int32_t fixed);

class GangAssembly {
 public:
  // A waiting pod (Gantry's, unbound, not deleting) arrived or changed; returns its gang.
  Gang& add(const KubePod& pod);
  // A pod stopped waiting (bound, deleted, ...); returns its gang's key if it was waiting.
  std::optional<std::string> remove(const std::string& namespace_name, const std::string& name);
  Gang* find(const std::string& key);
  // Drops a gang and forgets its pods (placed: its pods are bound now).
  void erase(const std::string& key);
  size_t size() const { return gangs_.size(); }

 private:
  std::map<std::string, Gang> gangs_;
  std::map<std::string, std::string> gang_of_;  // pod key -> gang key
};

}  // namespace gantry::kube
