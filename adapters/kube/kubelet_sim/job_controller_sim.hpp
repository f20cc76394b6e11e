#pragma once
// A STAND-IN for kube-controller-manager's Job controller (pkg/controller/job, v1.32), for
// Indexed Jobs only, so that a rehearsal on a plain API server (no controller manager: `gantry
// kubelet-sim --job-controller`, the fake API server of the tests) runs a Job's pods as a real
// cluster would. It is not the real controller and says so: kubelet-sim starts it only when
// asked, and a real cluster must not run it.
//
// For each Indexed Job (spec.completionMode Indexed, not suspended, not finished):
//  - keeps up to spec.parallelism pods for the indexes neither completed nor failed nor running:
//    the lowest first, each made by indexed_job_pod() (generateName "<job>-<index>-", the
//    batch.kubernetes.io/job-completion-index annotation and label, JOB_COMPLETION_INDEX, the
//    ownerReference); a pod being deleted no longer counts (podReplacementPolicy
//    TerminatingOrFailed, the default);
//  - counts each pod once (by uid) when it ends: Succeeded completes its index, Failed (or a
//    pod deleted before it ended) is a failure of its index. With spec.backoffLimitPerIndex an
//    index whose failures exceed it is failed (failedIndexes) and not retried; without it, the
//    Job fails once its failures exceed spec.backoffLimit;
//  - writes status through the status subresource (a merge patch) as the real controller does:
//    startTime, active, ready, terminating, succeeded, failed (counts omitted at 0 as the Go
//    struct omits them), completedIndexes and failedIndexes (index_intervals(); failedIndexes
//    "" from the start when backoffLimitPerIndex is set), uncountedTerminatedPods {};
//  - ends it as v1.31+ does (the terminal condition only once no pod of it runs or terminates):
//    every index completed → conditions SuccessCriteriaMet then Complete (reason
//    CompletionsReached, "Reached expected number of succeeded pods") and completionTime;
//    every index completed or failed with some failed → FailureTarget then Failed (reason
//    FailedIndexes, "Job has failed indexes"); more failed indexes than spec.maxFailedIndexes →
//    reason MaxFailedIndexesExceeded ("Job has exceeded the specified maximal number of failed
//    indexes"); failures above backoffLimit → BackoffLimitExceeded ("Job has reached the
//    specified backoff limit"). A failing Job's running pods are deleted.
// Not done: NonIndexed Jobs, suspend/resume, activeDeadlineSeconds, podFailurePolicy,
// successPolicy, ttlSecondsAfterFinished, the pod finalizer batch.kubernetes.io/job-tracking,
// the Failed/backoff delays between retries (a failed index is retried at once). The counts
// live in this process: a restarted stand-in counts from the pods still there.
//
// Threads: handlers and decisions on the event loop's thread; API calls on the ApiWorkers.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "engine/core/clock.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

struct JobControllerSimOptions {
  // The API server's clock for the times written (startTime, conditions, completionTime);
  // empty: the wall clock.
  std::function<Time()> server_now;
};

struct JobControllerSimStats {
  int64_t pods_created = 0;
  int64_t pods_deleted = 0;  // active pods of a failing Job
  int64_t status_writes = 0;
  int64_t write_errors = 0;
};

class JobControllerSim {
 public:
  // client, workers and loop must outlive it.
  JobControllerSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                   JobControllerSimOptions options = {});
  ~JobControllerSim();
  // Starts its informers (Jobs and pods, every namespace); handlers run on the loop.
  void start();
  void stop();
  JobControllerSimStats stats() const { return stats_; }  // loop thread

 private:
  struct Tracked {
    std::set<std::string> counted;  // pod uids counted as ended
    std::set<int64_t> completed;
    std::set<int64_t> failed_indexes;
    std::map<int64_t, int64_t> failures;  // per index
    int64_t succeeded = 0;
    int64_t failed = 0;
    std::map<int64_t, int> creating;  // index → creates sent, not seen yet
    std::string start_time;
    std::set<std::string> deleting;  // pod uids this stand-in deleted
    // Status writes go one at a time per Job, so that none overtakes another on the workers.
    std::string status_path;
    nlohmann::json written = nlohmann::json::object();  // the status decided last
    nlohmann::json sent = nlohmann::json::object();     // the status last sent
    bool in_flight = false;
    bool finished = false;
  };
  void on_job(const nlohmann::json& job, bool deleted);
  void on_pod(const nlohmann::json& pod, bool deleted);
  void count_end(Tracked& t, const nlohmann::json& job, const nlohmann::json& pod, bool gone);
  void sync(const std::string& job_uid);
  void write_status(const nlohmann::json& job, Tracked& t, nlohmann::json status);
  void flush_status(const std::string& job_uid);
  std::string now_text() const;

  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
  JobControllerSimOptions options_;
  std::unique_ptr<Informer> jobs_informer_;
  std::unique_ptr<Informer> pods_informer_;
  std::map<std::string, nlohmann::json> jobs_;                         // uid → Job
  std::map<std::string, std::map<std::string, nlohmann::json>> pods_;  // job uid → name → pod
  std::map<std::string, Tracked> tracked_;                             // job uid →
  JobControllerSimStats stats_;
  WallClock wall_clock_;
  bool stopped_ = false;
};

}  // namespace gantry::kube
