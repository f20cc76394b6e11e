#pragma once
// `gantry kubelet-sim`: a virtual kubelet for every node of a scenario, against a real (or the
// tests' fake) API server, so a team rehearses live mode with no GPUs and the same scenario
// runs in both worlds. It plays what a kubelet, and for its nodes the node lifecycle
// controller, would do: a plain API server (no kube-controller-manager) is enough.
//
//   start(): registers each node (node_objects.hpp; an existing Node of that name gets its
//            labels and status patched), then takes off the taint the API server puts on every
//            new Node (node.kubernetes.io/not-ready:NoSchedule, TaintNodesByCondition) as the
//            node lifecycle controller does once the node is Ready; creates its Lease in
//            kube-node-lease and renews it every 10 s of wall time; starts a pod informer.
//   a pod bound to one of its nodes, pending: Running after the scenario's pod start-up delay
//            (spec.sim.podStartup), then Succeeded after its gantry.dev/simulate-duration, or
//            Failed: with its gantry.dev/simulate-exit-code when not 0, with exit code 1 for
//            gantry.dev/simulate-outcome "failed", evicted (status.reason Evicted) for "error";
//            a pod without a duration runs until deleted. Its life is planned on the event
//            loop's clock (scaled by --speed on a wall clock): start-up, duration and grace
//            periods are loop time.
//   times written (status.startTime, the containers' startedAt and finishedAt, conditions,
//            Leases, node heartbeats) are on the API server's clock (KubeletSimOptions::
//            server_now, the wall clock by default), never after its now: a planned instant
//            is written as planned when the server's clock has reached it (speed 1: the
//            recorded life does not depend on a timer that runs late), else as the server's
//            now (above speed 1 the loop runs ahead of the server's clock).
//   a pod deleted gracefully (metadata.deletionTimestamp set; the API server keeps a bound pod
//            until its kubelet confirms): its life stops (no more steps), and after its grace
//            period (metadata.deletionGracePeriodSeconds, else spec.terminationGracePeriodSeconds,
//            else 30 s; loop time, so --speed 10 takes a tenth of it in wall time) its
//            container is terminated (exit code 137, Ready False) and the pod deleted with grace
//            0 and a uid precondition, the kubelet's confirmation: then it is gone.
//   a pod deleted: forgotten (nothing more is written for it).
//   a serving pod (adapters/kube/serving/serving_objects.hpp: the cold-start annotations
//            gantry.dev/image-pull, model, model-download, model-cache, model-load): Running
//            with its Ready condition False, then Ready True after its cold start, counted from
//            the start as the simulator counts it from placement (sim/serving/service_run.cpp):
//            image pull unless the node has the image (or is pulling it: then until that pull
//            ends), model download unless the annotation says cache and the node has the model
//            (or is fetching it), then the load. Pulled images and cached models stay on the
//            node for good (no garbage collection, as in the simulator).
// Serving Deployments (their pods and status) are played by DeploymentSim (deployment_sim.hpp),
// their simulated requests and metrics endpoint by ServingLoad (serving_load.hpp).
// Status goes through the pods/status and nodes/status subresources as a strategic merge patch
// (what a kubelet's status update amounts to: conditions merge by type, so the PodScheduled
// condition the binding wrote stays), a pod's with a uid precondition.
//
// Faults (`gantry kubelet-sim --events FILE`, the fault events file of `gantry simulate`:
// sim/fault_events.hpp; schedule_faults()), each at its instant, as a real cluster would end up
// showing them once the node lifecycle controller and the pod garbage collector have done
// their part:
//   node-down   its Lease is no longer renewed, its Ready condition turns Unknown (reason
//               NodeStatusUnknown), it is tainted node.kubernetes.io/unreachable (NoSchedule,
//               and NoExecute with its timeAdded), and every pod on it not ended yet is Failed
//               with status.reason NodeLost, its container terminated with exit code 137; a pod
//               bound to it while it is down fails the same way at once. `for`: up again after
//               it.
//   node-up     the unreachable taints taken off, then Ready True again, the Lease renewed again.
//   rack-down   the same for each node of the rack, with status.reason RackLost; rack-up.
//   gpu-fail    the pods holding that GPU (annotation gantry.dev/gpu-index) are Failed with
//               status.reason GPUFailure and exit code 137; the node's allocatable
//               nvidia.com/gpu drops by one and its annotation gantry.dev/unhealthy-gpus lists
//               the GPU (LiveCluster keeps it out of use) until gpu-repair (or `for`).
//   drain       not a kubelet's business: ignored here (counted in faults_ignored); the
//               orchestrator's LiveDrainer carries drains out.
// Outages nest as in the simulator (sim/training_world.cpp): a node down twice is up after
// both outages ended, or at once on an explicit node-up. The writes of one event (pods first,
// then the node; a node going down is marked not ready before it is tainted, one coming up is
// untainted before it is marked ready) are made in that order on one worker. Only the
// lifecycle taints (node.kubernetes.io/not-ready and /unreachable) are touched; any other taint
// of the node stays.
//
// --exec (KubeletSimOptions::exec; kubelet_sim_exec.cpp): a rehearsal of the real thing, not a
// simulation of it. A pod bound to one of its nodes has its first container's command + args
// run as a LOCAL process (pod_process.hpp; the image is ignored, the command must exist here),
// after the pod start-up delay, with the container's environment (container_env.hpp: values,
// secretKeyRef and configMapKeyRef read through the API server, fieldRef, HOSTNAME). The pod is
// Running (containerStatuses[0] named as the container, state running) while the process runs,
// then Succeeded or Failed with state.terminated {exitCode, reason Completed or Error,
// startedAt, finishedAt, and under terminationMessagePolicy FallbackToLogsOnError after a
// failure the message: the tail of its output}. Standard output and error are the container's
// log (container_log(), and DIR/<namespace>_<pod>_<container>.log with exec_log_dir). A pod
// deleted while its process runs: SIGTERM to its process group at once, SIGKILL after the grace
// period (loop time); the deletion is confirmed (terminated with the exit code, then deleted
// with grace 0) as soon as the process has ended. An env reference that cannot be resolved
// leaves the pod Pending with the waiting reason CreateContainerConfigError (the kubelet's
// message); a command that cannot be started ends it Failed with reason StartError, exit code
// 128. Not done: the other containers and init containers, restarts in place (restartPolicy
// OnFailure/Always), probes, volumes, resource limits.
// Unpullable images (KubeletSimOptions::unpullable_images, with or without --exec): a pod whose
// first container's image starts with one of the prefixes stays Pending with the waiting reason
// ErrImagePull and the kubelet's message (`Failed to pull image "X": ...`), then
// ImagePullBackOff (`Back-off pulling image "X"`) 10 s (loop time) later, the first back-off of
// a real kubelet; a pod deleted then is confirmed at once.
//
// Threads: the event loop's thread for everything but the API calls (ApiWorkers) and the
// informer's own thread, which posts its events to the loop.

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <variant>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kubelet_sim/pod_process.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "adapters/kube/serving/serving_objects.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/core/clock.hpp"
#include "engine/core/event_loop.hpp"
#include "sim/fault_event.hpp"

namespace gantry::kube {

inline constexpr std::string_view kSimulateExitCodeAnnotation = "gantry.dev/simulate-exit-code";
// status.reason of the pods a fault ends (the live world maps them to the simulator's eviction
// reasons: live_scheduler.hpp), and the exit code they end with (SIGKILL).
inline constexpr std::string_view kNodeLostReason = "NodeLost";
inline constexpr std::string_view kRackLostReason = "RackLost";
inline constexpr std::string_view kGpuFailureReason = "GPUFailure";
inline constexpr int kFaultExitCode = 137;
// The grace period of a pod that names none (the API server's default, 30 s).
inline constexpr int64_t kDefaultGraceSeconds = 30;

struct KubeletSimOptions {
  Duration pod_startup = seconds(5);
  // Event-loop time per wall second (the loop's clock speed): Lease renewals go every 10 s of
  // wall time whatever the speed.
  double speed = 1;
  bool renew_leases = true;
  // The API server's clock, read on the loop thread (and in start()); empty: the wall clock's
  // UTC (WallClock()), which a real API server's is, give or take NTP.
  std::function<Time()> server_now;
  // Run each pod's container as a local process (above).
  bool exec = false;
  // With exec: each container's log also written to this folder when it ends; empty: not.
  std::string exec_log_dir;
  // With exec: a command's argv[0] replaced by a path (e.g. {"gantry", "/opt/gantry/bin/gantry"}),
  // where the image would have had it; other commands are looked up on kubelet-sim's PATH.
  std::map<std::string, std::string> exec_commands;
  // Image prefixes that cannot be pulled (above), e.g. "unpullable/".
  std::vector<std::string> unpullable_images;
};

struct KubeletSimStats {
  int64_t nodes_registered = 0;
  int64_t pods_started = 0;
  int64_t pods_succeeded = 0;
  int64_t pods_failed = 0;
  int64_t write_errors = 0;
  int64_t faults_applied = 0;       // fault events carried out
  int64_t faults_ignored = 0;       // drains (not a kubelet's business)
  int64_t pods_lost = 0;            // pods failed by a fault
  int64_t deletions_confirmed = 0;  // pods deleted gracefully, ended and deleted with grace 0
  int64_t processes_started = 0;    // --exec
  int64_t processes_killed = 0;     // --exec: ended by SIGTERM/SIGKILL after a deletion
  int64_t image_pull_failures = 0;  // pods of an unpullable image
};

class KubeletSim {
 public:
  // All of client, workers and loop must outlive it.
  KubeletSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop, Topology topology,
             KubeletSimOptions options = {});
  ~KubeletSim();

  // Registers the nodes (blocking: on the caller's thread, before the loop runs), then starts
  // the informer. Throws KubeError/KubeTransportError when the API server refuses a node.
  void start();
  void stop();

  // Carries out `events` (sorted by time, node and rack ids of the topology given at
  // construction) at their instants on the event loop; events already due run at once. Loop
  // thread (or before the loop runs); replaces events scheduled before that have not run.
  void schedule_faults(std::vector<FaultEvent> events);
  // Whether a node is down now (loop thread).
  bool node_down(const std::string& node) const;

  KubeletSimStats stats() const { return stats_; }
  // --exec: the log of a pod's container (its output so far, or all of it once ended); nullopt
  // when it never ran here. Any thread.
  std::optional<std::string> container_log(const std::string& ns, const std::string& pod) const;
  // --exec: sends `sig` to the process group of a pod's running container, as a crash or the
  // kernel's OOM killer would end it (SIGKILL: exit code 137, the pod Failed); false when no
  // process of that pod runs. Any thread.
  bool signal_container(const std::string& ns, const std::string& pod, int sig) const;
  const Informer* informer() const { return informer_.get(); }

 private:
  struct Played {
    std::string uid;
    Time due;  // when the next step (running, ready, ended, confirmed) is planned
    Time started;
    std::optional<TimerId> timer;
    bool running = false;      // set_running() has run
    Time started_written;      // `started` as written then (written(), below): kept after
    bool terminating = false;  // deleted gracefully: confirm() is planned
    // --exec: the running process (destroying it kills it), the exit code a confirmation
    // writes, the SIGKILL timer after a deletion's grace.
    std::shared_ptr<PodProcess> process;
    int exit_code = kFaultExitCode;
    std::optional<TimerId> kill_timer;
    bool waiting = false;    // Pending for good (an unpullable image, a config error)
    bool launching = false;  // the process is being started on a worker
  };
  // The API server's now, and a planned instant as written (above).
  Time server_now() const;
  Time written(Time planned) const { return std::min(planned, server_now()); }
  void on_pod(const KubePod& pod, bool deleted);
  void set_running(const std::string& key);
  void set_ready(const std::string& key);
  // When a serving pod started at `start` on `node` is ready (the caches above).
  Time ready_at(const ServingColdStart& cold, const std::string& node, Time start);
  void set_ended(const std::string& key);
  // A pod deleted gracefully: its life stopped, confirm() planned after its grace period.
  void terminate(const KubePod& pod, Played& p);
  void confirm(const std::string& key);
  // --exec and unpullable images (kubelet_sim_exec.cpp).
  bool unpullable(const KubePod& pod) const;
  void fail_image_pull(const std::string& key);
  void start_exec(const std::string& key);
  void adopt(const std::string& key, const std::string& uid, std::shared_ptr<PodProcess> process);
  void on_process_exit(const std::string& key, const std::string& uid, ProcessEnd end);
  void terminate_exec(const KubePod& pod, Played& p);
  std::string container_name(const std::string& key) const;
  void write_waiting(const std::string& key, const std::string& reason, const std::string& message);
  void write_status(const KubePod& pod, nlohmann::json status);
  void renew_leases();
  // Faults (above).
  struct NodeFaults {
    int outages = 0;
    uint32_t generation = 0;  // bumped by an explicit up: outages ending by themselves are over
    uint64_t failed_gpus = 0;
  };
  void next_fault(size_t i);
  void apply_fault(const FaultEvent& e);
  void take_down(NodeId n, std::string_view reason, Duration for_how_long);
  void bring_up(NodeId n, bool all_outages);
  void repair_gpu(NodeId n, int gpu);
  // The status of a pod ended by a fault.
  nlohmann::json lost_status(std::string_view reason, const std::string& message) const;
  // Fails the pods on `node` (those holding `gpu` when >= 0) and then writes the node's status,
  // in that order on one worker.
  void fail_pods_and_write_node(NodeId n, int gpu, std::string_view reason);
  void write_node(NodeId n, std::vector<std::pair<std::string, nlohmann::json>> pod_patches);
  // Makes the node's lifecycle taints what the node lifecycle controller would leave: none for
  // a node up, node.kubernetes.io/unreachable (NoSchedule, NoExecute added at `at`) for one
  // down. Blocking (a GET, and a merge PATCH of spec.taints when they change); throws what
  // the client throws.
  void sync_lifecycle_taints(const std::string& node, bool down, Time at);

  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
  Topology topology_;
  KubeletSimOptions options_;
  std::set<std::string> nodes_;
  std::unique_ptr<Informer> informer_;
  std::map<std::string, Played> played_;            // pod key -> its life here
  std::map<std::string, KubePod> pods_;             // pod key -> last seen
  std::map<std::string, nlohmann::json> raw_pods_;  // pod key -> as read (exec, images)
  mutable std::mutex logs_mutex_;
  std::map<std::string, std::string> logs_;  // pod key -> an ended container's log
  std::map<std::string, std::shared_ptr<PodProcess>> running_;  // pod key -> (logs_mutex_)
  std::map<std::string, ServingColdStart> cold_starts_;         // pod key -> a serving pod's
  // Per node, when each image and each cached model is (or becomes) there.
  std::map<std::string, std::map<std::string, Time>> node_images_;
  std::map<std::string, std::map<std::string, Time>> node_models_;
  std::map<std::string, std::string> lease_versions_;
  std::map<std::string, NodeId> node_ids_;
  std::vector<NodeFaults> faults_;  // by NodeId
  std::vector<FaultEvent> fault_events_;
  std::optional<TimerId> fault_timer_;
  KubeletSimStats stats_;
  WallClock wall_clock_;  // the server's clock when options_.server_now is empty
  bool stopped_ = false;
};

}  // namespace gantry::kube
