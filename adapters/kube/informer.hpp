#pragma once
// An informer: keeps a local cache of one resource in step with the API server and tells
// handlers about every change, the way client-go's reflector + shared informer do.
//
// Protocol (what a real kube-apiserver v1.24+ expects):
//  1. List `path` in pages (limit/continue). A 410 on a continue token (the snapshot expired)
//     restarts the list from the first page.
//  2. Watch from the list's resourceVersion with allowWatchBookmarks=true. ADDED/MODIFIED/
//     DELETED update the cache and the resourceVersion; BOOKMARK moves only the
//     resourceVersion.
//  3. 410 Gone — as the watch's HTTP status or as an ERROR event inside a 200 stream — means
//     the resourceVersion is too old: list again and emit the differences between the old and
//     the new cache as adds, updates and deletes, so handlers see a consistent history. The
//     first 410 relists at once; a 410 again before any event was delivered (the fresh list's
//     version refused too: a lying server or proxy) waits a backoff first, so repeated 410s
//     never make a tight list loop.
//  4. A stream that breaks (transport error, bad event, a non-410 error status, or a close
//     before any event) reconnects from the last resourceVersion after a jittered exponential
//     backoff (backoff.hpp); a stream that delivered events and then closed (the server's
//     timeoutSeconds) reconnects at once. Any delivered event resets the backoff.
//
// Threads (DESIGN.md rule 1): start() runs the loop above on a thread of its own. The cache is
// updated on that thread first, then each change is handed to `dispatch`, which runs the
// handlers — inline on the informer thread by default; the live world passes a dispatch that
// EventLoop::post()s the closure, so handlers run on the loop thread. Handlers are called in
// the order they were added, and changes in the order they happened; a dispatch must keep that
// order (post() does). Because the cache is written before handlers run, a reader of cache()
// may already see a change whose handler has not run yet.
//
// Waits (backoff) go through the Sleeper; stop() interrupts it and cancels the watch, so no
// test waits on real time.
//
// Errors: nothing is thrown from the informer thread. List and watch failures are retried
// forever with backoff; last_error() says what went wrong last (for health checks), and every
// backoff and relist is logged (kube_log.hpp: a warning naming the path, the failure and the
// wait; a relist after one 410 as information).

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "adapters/kube/backoff.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/object_cache.hpp"
#include "adapters/kube/sleeper.hpp"
#include "engine/core/event_loop.hpp"

namespace gantry::kube {

enum class InformerEventType { kAdded, kUpdated, kDeleted };
const char* to_string(InformerEventType type);

struct InformerEvent {
  InformerEventType type = InformerEventType::kAdded;
  nlohmann::json object;      // the new state; for kDeleted the last state known
  nlohmann::json old_object;  // for kUpdated: the state before; null otherwise
};

using InformerHandler = std::function<void(const InformerEvent&)>;
// Runs a closure that calls the handlers; must preserve the order of calls.
using InformerDispatch = std::function<void(std::function<void()>)>;

struct InformerOptions {
  // The list path: "/api/v1/nodes", "/api/v1/pods", "/api/v1/namespaces/ns/pods",
  // "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", a CRD's
  // "/apis/gantry.dev/v1/namespaces/ns/pipelines". No query.
  std::string path;
  std::string label_selector;  // e.g. "app=job-a"
  std::string field_selector;  // e.g. "spec.schedulerName=gantry"
  int64_t page_size = 500;
  int64_t watch_timeout_seconds = 300;  // the server closes each watch after this
  bool strip_managed_fields = true;     // drop metadata.managedFields to save memory
  BackoffPolicy backoff{};
  uint64_t seed = 0;  // of the backoff jitter (RandomStreams(seed).stream("kube.informer"))
  Sleeper* sleeper = nullptr;   // nullptr: an InterruptibleSleeper owned by the informer
  InformerDispatch dispatch{};  // empty: run handlers inline on the informer thread
};

// Every pod bound to a node, cluster-wide, with handlers run on `loop` (kubelet-sim plays them,
// the drainer watches who is left on a node).
InformerOptions bound_pods_on(EventLoop& loop);

struct InformerStats {
  int64_t lists = 0;        // complete lists (the first one included)
  int64_t list_pages = 0;   // pages fetched
  int64_t watches = 0;      // watch requests started
  int64_t relists_410 = 0;  // relists because of 410 Gone (status or ERROR event)
  int64_t backoffs = 0;     // waits before a retry (repeated 410s included)
  int64_t bookmarks = 0;
  int64_t watch_lines = 0;  // watch events read (bookmarks and errors too), each dispatched first
};

class Informer {
 public:
  // `client` must outlive the informer.
  Informer(KubeClient& client, InformerOptions options);
  ~Informer();  // stop()s
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Before start() only.
  void add_handler(InformerHandler handler);

  // Starts the thread (once). Then stop() ends it; an informer is not restarted.
  void start();
  // Cancels the watch, interrupts any backoff, joins the thread. Idempotent; call from any
  // thread but the informer's own (and not from a handler running inline).
  void stop();

  // True once the first list is in the cache (and its handlers were dispatched).
  bool has_synced() const;
  // Blocks until has_synced() or stop(); returns has_synced().
  bool wait_for_sync();
  // Blocks until stats().watch_lines >= n or stop(); returns whether it got there. For tests
  // that must know a change written to the server reached the handlers' dispatch.
  bool wait_for_watch_lines(int64_t n);

  const ObjectCache& cache() const { return cache_; }
  std::string resource_version() const;
  InformerStats stats() const;
  std::string last_error() const;

 private:
  void run();
  bool list_all();  // false on failure (last_error_ set)
  WatchEnd watch_once(bool& relist, bool& delivered);
  void apply(InformerEventType type, nlohmann::json object, nlohmann::json old_object);
  nlohmann::json prepared(nlohmann::json object) const;
  std::string query(bool watch, const std::string& resource_version,
                    const std::string& continue_token) const;
  void set_error(std::string message);

  KubeClient& client_;
  InformerOptions options_;
  std::unique_ptr<Sleeper> own_sleeper_;
  Sleeper* sleeper_;
  std::shared_ptr<std::vector<InformerHandler>> handlers_;  // frozen at start()
  ObjectCache cache_;
  WatchCanceller canceller_;
  std::thread thread_;

  mutable std::mutex mutex_;
  std::condition_variable synced_cv_;
  bool synced_ = false;           // guarded by mutex_
  bool stopping_ = false;         // guarded by mutex_
  std::string resource_version_;  // guarded by mutex_
  std::string last_error_;        // guarded by mutex_
  InformerStats stats_;           // guarded by mutex_
};

}  // namespace gantry::kube
