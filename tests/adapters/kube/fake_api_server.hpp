#pragma once
// An in-memory Kubernetes API server for tests, on civetweb, on loopback (plain HTTP or TLS).
//
// It serves what Gantry's client uses, with the real server's semantics as captured in
// tests/data/k8s-captures (kube-apiserver v1.24):
//  - objects by path: /api/v1/[namespaces/NS/]RESOURCE[/NAME] and
//    /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME]; cluster-scoped when no namespace;
//    a collection without a namespace lists every namespace;
//  - one global resourceVersion counter; every write bumps it and appends a watch event;
//  - GET (object or list with limit/continue; labelSelector k=v and fieldSelector path=value /
//    path!=value, comma-separated), POST (409 AlreadyExists), PUT (409 Conflict on a stale
//    metadata.resourceVersion), PATCH (merge and strategic-merge as RFC 7386 merge patch, a
//    metadata.uid in the patch a precondition (409),
//    json-patch with "test" → 422, plain application/json → 415), DELETE (preconditions uid /
//    resourceVersion → 409), the status subresource (GET, PATCH, PUT of status only), POST
//    pods/NAME/binding (sets spec.nodeName and PodScheduled; 404 without the pod, 409 when already
//    assigned; answers a Success Status), POST pods/NAME/eviction (a policy/v1 Eviction whose
//    metadata.name is the pod's, else 400; 404 without the pod, 409 when deleteOptions'
//    uid precondition names another incarnation; then deletes the pod at once — no grace
//    period, no PodDisruptionBudgets: refuse_evictions() plays one — and answers 201 with a
//    Success Status);
//  - watches (?watch=true): chunked, one JSON event a line, from resourceVersion (none or "0":
//    synthetic ADDED events for what exists first); a selector turns a change that moves an
//    object out of the selection into DELETED and into it into ADDED; BOOKMARKs when asked
//    (allowWatchBookmarks=true) on send_bookmarks(); a resourceVersion older than compact()'s
//    horizon gets a 200 and an ERROR event with 410 Expired, as the real server does.
// Fault injection on command, for the next matching requests: any status with an optional
// Retry-After and body (plain text for the max-in-flight 429), a delay before answering, a
// dropped connection, a 200 whose body never ends; for open watches: expire_watches() (ERROR 410
// mid-stream), drop_watches() (connection closed without the end of the chunked body).
//
// Deterministic: uids are "uid-<n>", timestamps a fixed instant, lists in key order.
// TLS is terminated by web::TlsFront in front of the plain civetweb listener (tls_front.hpp says
// why). Connections are not kept alive (every request closes its connection), so dropping a stream
// never leaves a client waiting on a half-used connection.
//
// Threads: civetweb serves each request on one of its threads; every method here may be called
// from the test thread at any time (one mutex inside). The destructor ends open watches.

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

struct mg_context;
struct mg_connection;

namespace gantry::web {
class TlsFront;
}

namespace gantry::kube::testing {

struct FakeApiServerOptions {
  // PEM file with the server's key and certificate chain: serve https. Empty: plain http.
  std::string tls_pem_file;
  // With TLS: require a client certificate signed by this CA.
  std::string client_ca_file;
  int threads = 24;
};

struct RecordedRequest {
  std::string method;
  std::string path;                            // without the query
  std::string query;                           // raw
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
};

struct Fault {
  enum class Match { kAny, kWatch, kNotWatch };
  std::string method;          // "" = any
  std::string path_prefix;     // matched against the path without the query
  std::string query_contains;  // "" = any; e.g. "continue=" for list continuations
  Match match = Match::kAny;
  int times = 1;     // how many requests it applies to
  int status = 0;    // 0: answer normally (after the delay)
  std::string body;  // empty: a Status for `status`
  std::string content_type = "application/json";
  std::optional<int> retry_after_seconds;
  int delay_ms = 0;   // wait this long before answering (interrupted by the destructor)
  bool drop = false;  // close the connection without answering
  // Answer 200 with a chunked JSON body that never ends (`{"items":[` and then spaces, 64 KiB
  // a chunk) until the client hangs up or the server shuts down: a lying server.
  bool endless_body = false;
  // Hold the request until release_held(), then apply the rest of the fault (or answer
  // normally when status is 0). Lets a test change state while a client is between streams.
  bool hold = false;
};

class FakeApiServer {
 public:
  explicit FakeApiServer(FakeApiServerOptions options = {});
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  // "http://127.0.0.1:PORT" or "https://127.0.0.1:PORT".
  std::string url() const;

  // ---- state, as if another client wrote it ----
  // Creates or replaces the object at collection_path (e.g. "/api/v1/namespaces/default/pods")
  // with metadata.name from the object; returns it as stored (uid, resourceVersion set).
  nlohmann::json apply(const std::string& collection_path, nlohmann::json object);
  // Deletes it; false when absent.
  bool remove(const std::string& collection_path, const std::string& name);
  std::optional<nlohmann::json> get(const std::string& collection_path,
                                    const std::string& name) const;
  int64_t resource_version() const;

  // ---- watches ----
  void send_bookmarks();
  // Forgets history up to now: a later watch or continue from an older version gets 410.
  void compact();
  void expire_watches();  // ERROR 410 into every open watch, then end it
  void drop_watches();    // cut every open watch
  int open_watches() const;
  // Blocks until every open watch has written every event of the log that concerns it and
  // waits for more (a test's "the server has said all it has to say").
  void wait_watches_caught_up() const;
  // Watch lines (events, bookmarks, errors) written so far to watches of `path` (the request
  // path without the query, e.g. "/api/v1/pods") with these selectors.
  int64_t watch_lines_written(const std::string& path, const std::string& field_selector = {},
                              const std::string& label_selector = {}) const;
  int64_t watches_started() const;  // watch streams that got their headers, ever
  // Blocks until watches_started() >= n (or 30 s pass: then false, and the test fails).
  bool wait_for_watches_started(int64_t n) const;

  // ---- faults and records ----
  void inject(Fault fault);
  // The next `times` evictions of pod `pod` (any pod when empty; pods that exist, with the
  // uid asked for) are refused as a PodDisruptionBudget refuses them: 429 TooManyRequests, a
  // Status with the cause DisruptionBudget, and a Retry-After header when `retry_after_seconds`
  // is given.
  void refuse_evictions(int times, std::optional<int> retry_after_seconds = std::nullopt,
                        std::string pod = {});
  int held() const;  // requests being held now
  // Blocks until held() >= n (or 30 s pass: then false).
  bool wait_for_held(int n) const;
  void release_held();
  std::vector<RecordedRequest> requests() const;
  void clear_requests();

 public:
  struct Impl;  // the in-memory state (the .cpp's)

 private:
  static int on_request(mg_connection* conn, void* self);
  int handle(mg_connection* conn);

  mg_context* ctx_ = nullptr;
  std::unique_ptr<web::TlsFront> proxy_;  // the https front, when TLS was asked for
  bool tls_ = false;
  int port_ = 0;
  Impl* impl_;
};

}  // namespace gantry::kube::testing
