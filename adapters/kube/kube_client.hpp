#pragma once
// A client of the Kubernetes API server on libcurl: JSON requests with TLS and bearer-token or
// client-certificate authentication, a client-side QPS/burst limit, retries on 429/503 with
// Retry-After, typed results for the writes whose failures callers act on, and streaming
// watches.
//
// Threads: one KubeClient is shared by every thread of the process (informers, the scheduler's
// binder, the leader elector). Every method may be called concurrently: each request borrows a
// libcurl handle from a pool (kept for connection reuse) and the token and rate limiter lock
// inside. A watch blocks its calling thread until the stream ends, the callback says stop, or
// another thread calls WatchCanceller::cancel().
//
// Retries: a 429 or 503 answer that carries a Retry-After header (the API server's priority
// and fairness and max-in-flight limits do, with a plain-text body; eviction's PDB check does,
// with a Status) is retried after that many seconds (at most max_retry_wait), up to max_retries
// times; then the answer is returned as it is. evict() is the exception: one attempt, its 429
// returned to the caller. Other failures are never retried here: callers
// decide (an informer relists, a binder gives the pod back to the queue).
//
// Errors: a request that gets no HTTP answer (refused, dropped, TLS verification failed,
// timeout) throws KubeTransportError. So does an answer longer than max_response_bytes
// (KubeResponseTooLarge, naming the limit and the URL): a server that never ends its body, or
// answers with gigabytes, must not take the process's memory (a list page of 500 objects is a
// few MiB; etcd holds no object above 1.5 MiB). request() returns any HTTP answer; the typed
// helpers throw KubeError for the answers they do not turn into an outcome. Rate-limit and retry
// waits go through the injected Sleeper; when it is interrupted the request throws
// KubeTransportError("interrupted").

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "adapters/kube/kube_config.hpp"
#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/rate_limiter.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/sleeper.hpp"
#include "adapters/kube/watch_event.hpp"
#include "engine/core/clock.hpp"

namespace gantry::kube {

// 64 MiB: some ten times the largest list page of 500 objects a real cluster sends.
inline constexpr int64_t kDefaultMaxResponseBytes = int64_t{64} << 20;

// An answer longer than KubeClientOptions::max_response_bytes; what() names the method, the
// URL and the limit. A transport error for callers: nothing usable came back (an informer
// backs off and lists again; a command ends with exit code 2).
class KubeResponseTooLarge : public KubeTransportError {
 public:
  using KubeTransportError::KubeTransportError;
};

struct KubeClientOptions {
  double qps = 50;  // kube-scheduler's own defaults (client-go's are 5 and 10)
  int burst = 100;
  int max_retries = 5;                     // per request, on 429/503 with Retry-After
  Duration max_retry_wait = seconds(60);   // a longer Retry-After is cut to this
  Duration request_timeout = seconds(30);  // whole request, not watches
  Duration connect_timeout = seconds(10);
  // The largest answer read (not watches: their lines are capped one by one, watch_event.hpp).
  // A longer one is abandoned as it arrives and thrown as KubeResponseTooLarge.
  int64_t max_response_bytes = kDefaultMaxResponseBytes;
  std::string user_agent = "gantry/0.1";
  // Injected for tests; nullptr = a WallClock / an InterruptibleSleeper owned by the client.
  // Both must outlive the client.
  const Clock* clock = nullptr;
  Sleeper* sleeper = nullptr;
};

// Content types of PATCH. A plain application/json PATCH is refused by the server with 415.
enum class PatchType {
  kMerge,           // application/merge-patch+json (RFC 7386)
  kStrategicMerge,  // application/strategic-merge-patch+json (built-in kinds only)
  kJson,            // application/json-patch+json (RFC 6902; a failed "test" is 422)
};
const char* content_type_of(PatchType type);

struct KubeResponse {
  int status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names
};

// What a write that callers act on came to. Each helper says which outcomes it returns; every
// other answer is thrown as KubeError.
enum class WriteOutcome {
  kOk,               // done (created, updated, deleted, bound)
  kAlreadyExists,    // create: 409 AlreadyExists — the object is there already
  kConflict,         // update/delete/bind: 409 Conflict — stale resourceVersion, failed
                     // precondition, or a pod already bound
  kNotFound,         // update/delete/bind: 404 — the object (or the pod) is gone
  kTooManyRequests,  // evict: 429 — a PodDisruptionBudget (or the server's limits) refuses it
                     // now; status.retry_after says when to ask again, when the server says
};
const char* to_string(WriteOutcome outcome);

struct WriteResult {
  WriteOutcome outcome = WriteOutcome::kOk;
  nlohmann::json object;  // the server's answer: the object, or its Status on 409/404
  KubeStatus status;      // decoded when the outcome is not kOk
};

// "conflict: <the Status's message>": what went wrong, for a Status::error.
std::string describe(const WriteResult& r);

// Ends a watch from another thread. One canceller may serve several watches in turn; cancel()
// is sticky until reset(). Thread-safe.
class WatchCanceller {
 public:
  void cancel();
  void reset();
  bool cancelled() const { return cancelled_.load(); }

 private:
  friend class KubeClient;
  void attach(void* multi);  // CURLM* of the running watch, or nullptr
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  void* multi_ = nullptr;  // guarded by mutex_
};

enum class WatchEnd {
  kCancelled,       // WatchCanceller::cancel()
  kStopped,         // the callback returned false
  kClosed,          // the server ended the stream (a timeoutSeconds expiry, a restart)
  kHttpError,       // the answer was not 200 (e.g. 410 Expired): see status
  kTransportError,  // no answer, or the connection broke mid-stream: see detail
  kBadEvent,        // a line that is not a watch event: see detail
};
const char* to_string(WatchEnd end);

struct WatchResult {
  WatchEnd end = WatchEnd::kClosed;
  KubeStatus status;   // for kHttpError
  std::string detail;  // for kTransportError and kBadEvent
  int64_t events = 0;  // events delivered to the callback
};

class KubeClient {
 public:
  // Does not contact the server. Throws std::runtime_error if libcurl cannot be initialised.
  explicit KubeClient(KubeConfig config, KubeClientOptions options = {});
  ~KubeClient();
  KubeClient(const KubeClient&) = delete;
  KubeClient& operator=(const KubeClient&) = delete;

  const KubeConfig& config() const { return config_; }

  // ---- raw ----
  // `path` starts with '/' and may carry a query ("/api/v1/pods?limit=500"). Applies the rate
  // limit and the 429/503 retries; returns whatever HTTP answer came last.
  KubeResponse request(std::string_view method, std::string_view path, std::string_view body = {},
                       std::string_view content_type = {});

  // ---- JSON; any non-2xx answer throws KubeError ----
  nlohmann::json get(std::string_view path);
  nlohmann::json post(std::string_view path, const nlohmann::json& body);
  nlohmann::json put(std::string_view path, const nlohmann::json& body);
  nlohmann::json patch(std::string_view path, const nlohmann::json& body, PatchType type);

  // ---- writes with outcomes ----
  // POST to a collection: kOk or kAlreadyExists (objects with deterministic names: a restart
  // that creates again finds its object there).
  WriteResult create(std::string_view collection_path, const nlohmann::json& object);
  // PUT of a whole object carrying metadata.resourceVersion: kOk, kConflict (someone wrote
  // first: read again and retry) or kNotFound.
  WriteResult update(std::string_view object_path, const nlohmann::json& object);
  // DELETE with DeleteOptions (preconditions): kOk, kConflict (precondition failed), kNotFound.
  WriteResult remove(std::string_view object_path, const DeleteOptions& options = {});
  // POST pods/{pod}/binding: kOk, kConflict (already bound, to any node), kNotFound (no pod).
  // `annotations` land on the pod with the binding (request_bodies.hpp).
  WriteResult bind(const std::string& ns, const std::string& pod, const std::string& node,
                   const std::string& pod_uid = {},
                   const std::map<std::string, std::string>& annotations = {});
  // POST pods/{pod}/eviction (policy/v1 Eviction, request_bodies.hpp): kOk (the API server
  // accepted it and deletes the pod), kNotFound (no pod of that name), kConflict (the pod of that
  // name is not incarnation `pod_uid`), kTooManyRequests. One attempt: a 429 or 503 is not
  // retried here, so that the caller waits on its own timers (the event loop's) rather than on a
  // worker thread.
  WriteResult evict(const std::string& ns, const std::string& pod, const std::string& pod_uid = {});
  // POST an events.k8s.io/v1 Event: kOk or kAlreadyExists.
  WriteResult create_event(const EventSpec& spec);

  // ---- watch ----
  // GET `path` (which must ask for a watch: "...?watch=true&resourceVersion=..."), then call
  // `on_event` for each event, in order, on this thread; on_event returns false to stop.
  // ERROR events are delivered like the others (the caller decides; see informer.hpp).
  // `canceller` may be nullptr. Never throws for the stream's own failures; see WatchResult.
  WatchResult watch(std::string_view path, const std::function<bool(WatchEvent&)>& on_event,
                    WatchCanceller* canceller = nullptr);

  // Counters, for tests and metrics.
  int64_t requests_sent() const { return requests_sent_.load(); }
  int64_t retries() const { return retries_.load(); }

 private:
  void* acquire_handle();  // CURL*
  void release_handle(void* handle);
  void configure(void* handle, std::string_view method, const std::string& url,
                 std::string_view body, void* header_list);
  void* build_headers(std::string_view content_type, bool watch);  // curl_slist*
  std::string bearer_token();
  bool wait(Duration d);
  KubeResponse perform_once(std::string_view method, std::string_view path, std::string_view body,
                            std::string_view content_type);
  WriteResult outcome_of(const KubeResponse& r, bool creating);

  // Constant after construction.
  KubeConfig config_;
  KubeClientOptions options_;
  std::unique_ptr<Clock> own_clock_;
  std::unique_ptr<Sleeper> own_sleeper_;
  const Clock* clock_;
  Sleeper* sleeper_;

  TokenBucket limiter_;  // locks inside

  std::mutex pool_mutex_;
  std::vector<void*> idle_handles_;  // guarded by pool_mutex_

  std::mutex token_mutex_;
  std::string token_;        // guarded by token_mutex_
  int64_t token_mtime_ = 0;  // guarded by token_mutex_; of token_file when last read
  int64_t token_size_ = -1;  // guarded by token_mutex_

  std::atomic<int64_t> requests_sent_{0};
  std::atomic<int64_t> retries_{0};
};

// Percent-encodes a query value ("spec.nodeName=" → "spec.nodeName%3D").
std::string query_escape(std::string_view value);

}  // namespace gantry::kube
