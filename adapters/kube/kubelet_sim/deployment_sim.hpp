#pragma once
// kubelet-sim's stand-in for kube-controller-manager's Deployment and ReplicaSet controllers,
// for the serving Deployments Gantry creates (adapters/kube/serving/serving_objects.hpp: label
// app.kubernetes.io/component=serving), so a live rehearsal against a bare API server (or the
// tests' fake) has replicas to place and to scale. Against a cluster that runs
// kube-controller-manager, leave it off: both would make pods.
//
//   a Deployment with spec.replicas = n and k live pods (its service and predictor labels, not
//   ended, not being deleted; pods being created count too):
//     k < n   create pods `<deployment>-<i>`, i the lowest indexes not in use, from the pod
//             template (its labels, annotations and spec; an ownerReference to the Deployment,
//             not as controller: see below), through POST;
//     k > n   delete k − n pods (uid precondition), in a ReplicaSet's order: not yet bound to a
//             node first, then not Ready, then the highest index;
//   status    replicas, updatedReplicas (the live pods), readyReplicas and availableReplicas
//             (the Ready ones), observedGeneration, through the status subresource (merge PATCH),
//             whenever they change, one write at a time;
//   deleted   its pods deleted too (what the garbage collector would do).
// The pods are then bound by Gantry's live scheduler like any other pod and run by kubelet-sim
// (kubelet_sim.hpp: Ready after the cold start).
//
// Why the ownerReference is not a controller reference: the live world takes the pods of one
// controller owner for one gang (model/kube_pod.hpp), and a Deployment's replicas are
// independent gangs of one. (Pods made by a real ReplicaSet do carry a controller reference:
// see adapters/kube/serving/README.md, "Limits".)
//
// A listener (ServingLoad) hears of every serving Deployment and pod change, on the loop
// thread, after DeploymentSim has taken it in.
//
// Threads: the event loop's for everything but the API calls (ApiWorkers) and the informers'
// own threads, which post to the loop. Destroy after stop(), once the loop runs no more posts.

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/serving/serving_objects.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

class ServingObjectsListener {
 public:
  virtual ~ServingObjectsListener() = default;
  virtual void deployment_changed(const ServingDeployment& d, bool deleted) = 0;
  virtual void pod_changed(const ServingPod& pod, bool deleted) = 0;
};

struct DeploymentSimOptions {
  std::string namespace_name;  // "": every namespace
  // After a failed create, reconcile again this much later.
  Duration retry_after = seconds(5);
};

struct DeploymentSimStats {
  int64_t pods_created = 0;
  int64_t pods_deleted = 0;
  int64_t status_writes = 0;
  int64_t write_errors = 0;
  int64_t skipped_objects = 0;  // objects that could not be read
};

class DeploymentSim {
 public:
  // All must outlive it.
  DeploymentSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                DeploymentSimOptions options = {});
  ~DeploymentSim();
  DeploymentSim(const DeploymentSim&) = delete;
  DeploymentSim& operator=(const DeploymentSim&) = delete;

  // Before start(); must outlive it.
  void set_listener(ServingObjectsListener* listener) { listener_ = listener; }
  void start();
  void stop();

  const Informer& deployment_informer() const { return *deployments_informer_; }
  const Informer& pod_informer() const { return *pods_informer_; }
  // The list paths of the two informers (for a test harness).
  std::string deployments_path() const;
  std::string pods_path() const;
  DeploymentSimStats stats() const { return stats_; }

 private:
  void on_deployment(const nlohmann::json& object, bool deleted);
  void on_pod(const nlohmann::json& object, bool deleted);
  void reconcile(const std::string& deployment_key);
  // The live pods of a Deployment (not being deleted by us).
  std::vector<const ServingPod*> pods_of(const ServingDeployment& d) const;
  void create_pod(const ServingDeployment& d, int index);
  void delete_pod(const ServingPod& pod);
  // Writes the status when it changed and no write is in flight.
  void sync_status(const std::string& deployment_key);
  void write_status(const ServingDeployment& d, int replicas, int ready);

  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
  DeploymentSimOptions options_;
  ServingObjectsListener* listener_ = nullptr;
  std::unique_ptr<Informer> deployments_informer_;
  std::unique_ptr<Informer> pods_informer_;
  std::map<std::string, ServingDeployment> deployments_;   // by key
  std::map<std::string, ServingPod> pods_;                 // by key, serving pods
  std::map<std::string, std::set<std::string>> creating_;  // deployment key -> pod names
  std::set<std::string> deleting_;                         // pod keys
  struct StatusWrite {
    bool inflight = false;
    std::optional<std::tuple<int, int, int64_t>> written;  // replicas, ready, generation
  };
  std::map<std::string, StatusWrite> status_writes_;  // by deployment key
  DeploymentSimStats stats_;
  bool stopped_ = false;
};

}  // namespace gantry::kube
