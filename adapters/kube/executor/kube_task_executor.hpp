#pragma once
// The live pipeline executor: runs each attempt as Kubernetes objects (attempt_plan.hpp) and
// learns its start and end from its pods' status (attempt_status.hpp), through the client of
// adapters/kube. The simulated counterpart is adapters/simcluster/cluster_task_executor.hpp.
//
// THE CONTRACT of workflow/runner/task_executor.hpp, live:
//   - start(): plans the objects on the loop thread, then a worker creates them in order —
//     the owner ConfigMap, the headless Service, the pods in gang order — each
//     ownerReferenced to the ConfigMap. Names are deterministic, so a create answered 409
//     AlreadyExists means "already there" (a GET checks it carries this attempt's id and
//     reads its uid): a restart never duplicates a pod. A create refused otherwise (after the
//     client's 429/503 retries with Retry-After), or no answer at all, ends the attempt as
//     error; its reason names the object and gives the API server's words ("creating pod
//     ns/name: 404 NotFound: namespaces \"ns\" not found"), or the request and the
//     transport's error; what was created is deleted.
//     Templates the executor cannot run (rayjob, sparkjob) end as error at once (posted).
//   - the pods are watched by an Informer (label app.kubernetes.io/managed-by=gantry) whose
//     events are posted to the loop: attempt_running(id, at) once every pod has started, `at`
//     the latest container start (or pod startTime) read from the status, at most now;
//     attempt_finished when the pods say so (attempt_status.hpp: succeeded, failed with the
//     exit code, error for eviction, node loss or deletion). After a failed or error end the
//     pods still pending or running are deleted (the rest of a gang must not hold GPUs);
//     finished pods, the Service and the ConfigMap stay, so logs can be read (deleting the
//     ConfigMap removes the lot).
//   - kill(id): acknowledged kKilled at once for an attempt held (nothing is reported for it
//     afterwards), kUnknown otherwise; a worker then stops the creation, waits for a create in
//     flight, and deletes every object of the attempt (pods, Service, ConfigMap) with uid
//     preconditions where the uid is known, the ConfigMap with propagationPolicy Background.
//   - adopt(id, listener): an attempt still held by this executor takes the new listener and
//     is reported again from its pods' state; otherwise the informer's cache is searched for
//     pods labelled with the id. Call wait_for_sync() before the scheduler's recovery: an
//     adopt() before the informer's first list waits for it (blocking the loop once, rather
//     than declaring every attempt lost and running it twice). All the gang's pods there
//     (gantry.dev/gang-size of them): adopted, its
//     running start and end reported from their status (posted). Some missing (a process
//     stopped half-way through creating them): the leftovers are deleted and false returned,
//     so the scheduler starts the task again (LostAttempts).
//
// Logs: read_logs() (blocking, any thread but the loop's) and fetch_logs() (loop thread,
// answered on the loop) read each pod's log through the API server
// (GET /api/v1/namespaces/{ns}/pods/{name}/log), for as long as the pods exist.
//
// Threads (DESIGN.md rule 1): start/kill/adopt/fetch_logs and the listener calls happen on the
// loop thread only, and none of them waits for the API server. API calls run on ApiWorkers
// (adapters/kube/api_workers.hpp) of `workers` threads and on the informer's thread; what they
// learn comes back through EventLoop::post() (or options.post). Closures posted after the executor
// is destroyed do nothing. read_logs(), stats() and last_error() may be called from any thread.
//
// Errors: nothing is thrown from start/kill/adopt; API failures end the attempt as error
// (creation) or are counted and kept in last_error() (deletion, which a real cluster's garbage
// collector finishes through the owner reference). Every failed call is also logged as a
// warning (kube_log.hpp: standard error) naming the object ("deleting pod ns/name: 403
// Forbidden: ..."), since a deletion's failure comes after the attempt was reported.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/executor/attempt_plan.hpp"
#include "adapters/kube/executor/attempt_status.hpp"
#include "adapters/kube/informer.hpp"
#include "adapters/kube/kube_client.hpp"
#include "engine/core/event_loop.hpp"
#include "workflow/runner/task_executor.hpp"

namespace gantry::kube {

struct KubeExecutorOptions {
  // Names, namespace, scheduler name, image and ports of the objects. With
  // plan.namespace_name set, the informer watches that namespace only; else every namespace.
  AttemptPlanOptions plan;
  int workers = 2;  // threads making API calls
  // The objects of an attempt that ended on its own (pods, Service, owner ConfigMap) are
  // deleted this long after its end, as a Job's ttlSecondsAfterFinished does: long enough to
  // read its pods' logs and status, short enough that a cluster does not fill with them. The
  // run history stays in Gantry's database. nullopt: kept until someone deletes them.
  std::optional<Duration> keep_finished = hours(24);
  // How results reach the loop thread; empty: loop.post(). Tests wrap it to wait for posts.
  std::function<void(std::function<void()>)> post;
  // The informer's backoff waits (nullptr: its own) and jitter seed.
  Sleeper* informer_sleeper = nullptr;
  uint64_t seed = 0;
};

struct PodLog {
  std::string pod;
  std::string role;  // replica type ("" for a container task)
  int gang_index = 0;
  std::string text;   // the log, when it could be read
  std::string error;  // why it could not ("" when it could)
};

struct LogOptions {
  std::optional<int64_t> tail_lines;   // only the last lines
  std::optional<int64_t> limit_bytes;  // at most this many bytes
};

struct KubeExecutorStats {
  int64_t created = 0;          // objects created
  int64_t already_existed = 0;  // creates answered 409 AlreadyExists (ours)
  int64_t deleted = 0;          // deletes answered 200 (404 is not counted)
  int64_t api_failures = 0;     // calls that failed (creation and deletion)
};

class KubeTaskExecutor final : public TaskExecutor {
 public:
  // `loop` and `client` must outlive the executor. Starts the pod informer and the workers.
  KubeTaskExecutor(EventLoop& loop, KubeClient& client, KubeExecutorOptions options = {});
  // Stops the informer, finishes the queued API calls (creations and deletions), joins.
  // Call on the loop thread or once the loop has stopped.
  ~KubeTaskExecutor() override;
  KubeTaskExecutor(const KubeTaskExecutor&) = delete;
  KubeTaskExecutor& operator=(const KubeTaskExecutor&) = delete;

  // Blocks until the pod informer has its first list (false if it was stopped first). Before
  // adopt(); not on a running loop's thread.
  bool wait_for_sync();

  void start(const AttemptRequest& request, AttemptListener& listener) override;
  KillAck kill(AttemptId id) override;
  bool adopt(AttemptId id, AttemptListener& listener) override;

  // The logs of the attempt's pods, in gang order (none when no pod of it is in the cache).
  // Blocks on the API server: any thread but the loop's.
  std::vector<PodLog> read_logs(AttemptId id, const LogOptions& options = {}) const;
  // The same on a worker; `done` runs on the loop thread. Loop thread.
  void fetch_logs(AttemptId id, LogOptions options, std::function<void(std::vector<PodLog>)> done);

  // Blocks until every API call queued so far (creations, deletions, log reads) has been
  // made; what they learnt may still be on its way to the loop. For tests and an orderly
  // shutdown; not on a running loop's thread.
  void wait_for_api_calls() { queue_->wait_idle(); }
  // The pool its API calls run on (for harnesses that wait for quiet).
  ApiWorkers& workers() { return *queue_; }

  // Attempts held (started or adopted, not ended nor killed). Loop thread.
  size_t held() const { return attempts_.size(); }
  // The base name of a held attempt's objects, or "". Loop thread.
  std::string base_name(AttemptId id) const;
  // What the executor knows of a held attempt's pod (nullopt: no such attempt or pod): how
  // far the informer's events have reached the loop. Loop thread.
  std::optional<PodPhase> pod_phase(AttemptId id, const std::string& pod) const;
  KubeExecutorStats stats() const;
  std::string last_error() const;
  const Informer& informer() const { return *informer_; }

 private:
  // Between the loop and the workers, for one attempt.
  struct Shared {
    std::mutex mutex;
    std::condition_variable cv;
    bool cancelled = false;  // stop creating (killed, or ended)
    bool creating = false;   // a create job is queued or running
    std::string owner_uid;
    std::string service_uid;
    std::map<std::string, std::string> pod_uids;
  };
  // Loop thread only.
  struct Attempt {
    AttemptListener* listener = nullptr;
    std::string namespace_name;
    std::string base;
    bool has_service = false;
    std::vector<NamedPod> pods;  // gang order
    Resources requests;
    bool reported_running = false;
    std::shared_ptr<Shared> shared;
  };

  void post(std::function<void()> fn);
  void on_pod_event(const InformerEvent& event);
  // Reports what the pods say; may end (erase) the attempt.
  void evaluate(AttemptId id);
  // Ends it: reports `result`, deletes its unfinished pods (everything with `delete_all`).
  void end(AttemptId id, AttemptResult result, bool delete_all = false);
  // Workers.
  void create_objects(const AttemptPlan& plan, const std::shared_ptr<Shared>& shared);
  // Deletes the named pods (all of the attempt's when `everything`, with its Service and
  // ConfigMap), after any create in flight.
  void delete_objects(const std::string& ns, const std::string& base, bool has_service,
                      std::vector<std::string> pods, bool everything,
                      const std::shared_ptr<Shared>& shared);
  std::vector<nlohmann::json> cached_pods(AttemptId id) const;
  void failed_call(const std::string& what);

  EventLoop& loop_;
  KubeClient& client_;
  KubeExecutorOptions options_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // loop thread
  std::map<AttemptId, Attempt> attempts_;                       // loop thread
  std::unique_ptr<Informer> informer_;
  std::unique_ptr<ApiWorkers> queue_;

  std::atomic<int64_t> created_{0};
  std::atomic<int64_t> already_existed_{0};
  std::atomic<int64_t> deleted_{0};
  std::atomic<int64_t> api_failures_{0};
  mutable std::mutex error_mutex_;
  std::string last_error_;  // guarded by error_mutex_
};

}  // namespace gantry::kube
