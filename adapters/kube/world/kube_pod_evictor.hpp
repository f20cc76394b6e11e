#pragma once
// The PodEvictor (pod_evictor.hpp) over the Kubernetes API: POST pods/{name}/eviction with a
// policy/v1 Eviction whose DeleteOptions carry a uid precondition (a pod recreated under the
// same name is never touched). Each request runs on an ApiWorkers thread; its answer is posted
// to the event loop, and every wait is a timer of the loop (never a sleep on any thread):
//
//   201 accepted                         done(ok); the informer shows the pod go
//   404 no such pod, 409 another uid     done(ok): the incarnation meant is gone already
//   429 (a PodDisruptionBudget says      asked again after the Retry-After header's seconds
//       not now, or the server's limits)  (else the Status' retryAfterSeconds; else, or when 0,
//                                         default_retry_after), at most max_retry_after; as
//                                         often as it takes, as kubectl drain does
//   anything else (5xx, 403, no answer)  asked again after error_backoff, doubling up to
//                                         error_backoff_max, max_error_retries times; then
//                                         done(error naming the last failure)
//
// Threads: evict() and the destructor on the loop thread (or after the loop stopped running);
// the client and the workers are thread-safe. The destructor cancels the retries not yet made.

#include <map>
#include <memory>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/world/pod_evictor.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

struct PodEvictorOptions {
  Duration default_retry_after = seconds(1);  // a 429 that says no (or zero) seconds
  Duration max_retry_after = seconds(60);     // a longer Retry-After is cut to this
  Duration error_backoff = seconds(1);        // after any other failure, doubling ...
  Duration error_backoff_max = seconds(30);   // ... up to this
  int max_error_retries = 5;                  // other failures before giving up
};

struct PodEvictorStats {
  int64_t requests = 0;   // eviction POSTs made (or attempted)
  int64_t accepted = 0;   // 201
  int64_t gone = 0;       // 404 or 409: the pod was gone already
  int64_t throttled = 0;  // 429s, each retried
  int64_t errors = 0;     // other failures, retried or not
  int64_t given_up = 0;   // evictions ended with an error
};

class KubePodEvictor final : public PodEvictor {
 public:
  // All must outlive the evictor.
  KubePodEvictor(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                 PodEvictorOptions options = {});
  ~KubePodEvictor() override;
  KubePodEvictor(const KubePodEvictor&) = delete;
  KubePodEvictor& operator=(const KubePodEvictor&) = delete;

  void evict(const PodRef& pod, std::function<void(Status)> done) override;
  // Loop thread.
  const PodEvictorStats& stats() const { return stats_; }

 private:
  struct Eviction {
    PodRef pod;
    std::function<void(Status)> done;
    int errors = 0;
  };
  // What one request came to, decided on the worker.
  struct Answer {
    enum class Kind { kAccepted, kGone, kThrottled, kError } kind = Kind::kError;
    std::optional<Duration> retry_after;  // kThrottled: what the server said
    std::string error;                    // kError
  };
  void send(std::shared_ptr<Eviction> e);
  void answered(std::shared_ptr<Eviction> e, const Answer& a);
  void again_after(std::shared_ptr<Eviction> e, Duration wait);

  KubeClient& client_;
  ApiWorkers& workers_;
  EventLoop& loop_;
  PodEvictorOptions options_;
  PodEvictorStats stats_;
  std::map<uint64_t, TimerId> retries_;  // waiting to ask again, by a serial number
  uint64_t next_retry_ = 0;
};

}  // namespace gantry::kube
