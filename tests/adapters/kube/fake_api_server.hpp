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
//    metadata.resourceVersion), PATCH (merge as RFC 7386, strategic merge as kube-apiserver
//    merges the lists of built-in kinds (strategic_merge.hpp: status.conditions by type, ...),
//    a metadata.uid in the patch a precondition (409),
//    json-patch with "test" → 422, plain application/json → 415), DELETE (preconditions uid /
//    resourceVersion → 409), the status subresource (GET, PATCH, PUT of status only), POST
//    pods/NAME/binding (sets spec.nodeName and the PodScheduled condition, keeping the others;
//    404 without the pod, 409 when already assigned; answers a Success Status), POST
//    pods/NAME/eviction (a policy/v1 Eviction whose metadata.name is the pod's, else 400; 404
//    without the pod, 409 when deleteOptions' uid precondition names another incarnation; no
//    PodDisruptionBudgets: refuse_evictions() plays one; then deletes the pod as a DELETE with
//    the deleteOptions does, and answers 201 with a Success Status);
//  - namespaces: default, kube-system, kube-public and kube-node-lease exist; a create in any
//    other namespace is 404 NotFound (details kind "namespaces", as the NamespaceLifecycle
//    admission answers) until the Namespace is created (POST /api/v1/namespaces, or
//    create_namespace()). Deleting a Namespace removes it alone (a real one ends Terminating
//    and its namespace controller deletes what it holds);
//  - what a real server adds to and refuses in what it creates through POST (fake_api_rules.hpp):
//    a Pod's defaults (restartPolicy, terminationGracePeriodSeconds 30, tolerations, the
//    service-account token volume, status Pending with its qosClass, ...) and its priority,
//    computed from scheduling.k8s.io/v1 PriorityClasses (system-cluster-critical and
//    system-node-critical exist; 403 for an unknown class or a spec.priority that differs); a
//    Node's not-ready:NoSchedule taint and zero-valued status fields;
//  - batch/v1 Jobs and Secrets as v1.32 stores them (fake_api_jobs.hpp: a Job's defaults,
//    generated selector and labels, its validation and immutable fields on update; a Secret's
//    stringData base64-encoded into data); metadata.generateName (the name + 5 characters of
//    the real alphabet, deterministic here);
//  - with FakeApiServerOptions::garbage_collector, garbage collection by
//    metadata.ownerReferences, at once after each DELETE and create (the real garbage collector
//    runs soon after): propagationPolicy (query or DeleteOptions body)
//    Background deletes the object and then its dependents (pods gracefully, as a DELETE does),
//    Foreground marks the object (deletionTimestamp, finalizer foregroundDeletion; answered 202
//    with the object), deletes its dependents and removes it once they are gone, Orphan strips
//    the dependents' ownerReferences to it. The default is Orphan for batch/v1 Jobs (the Job
//    strategy's DefaultGarbageCollectionPolicy, kept for compatibility: a bare DELETE of a Job
//    leaves its pods!) and Background for everything else. A deleted Job or Secret is answered
//    with a Success Status naming it, as the registry does for kinds that do not return the
//    deleted object;
//  - RBAC refusals on command (forbid());
//  - graceful deletion of pods (rest.BeforeDelete and CheckGracefulDelete, fake_api_rules.hpp):
//    a bound pod that has not ended is only marked (metadata.deletionTimestamp = now + grace,
//    deletionGracePeriodSeconds; a MODIFIED event) and stays until a delete with grace 0 (its
//    kubelet's: kubelet-sim, or test_support's DeletionConfirmer) removes it; a later delete
//    may only shorten the grace. The DELETED object carries deletionTimestamp and grace 0 (a
//    real server also writes that state first, as a MODIFIED event, which the fake does not).
// Time: `FakeApiServerOptions::now` (creationTimestamp, deletionTimestamp, the binding's
// PodScheduled time); a fixed instant, 2026-01-01T00:00:00Z, by default.
// Objects written through apply() (the test's own writes) are stored as given: no admission,
// no defaults, no namespace check; a pod stored without terminationGracePeriodSeconds is
// deleted at once, as the real strategy does for a pod without it. remove() deletes at once
// (a force delete).
// Fault injection on command, for the next matching requests: any status with an optional
// Retry-After and body (plain text for the max-in-flight 429), a delay before answering, a
// dropped connection, a 200 whose body never ends; for open watches: expire_watches() (ERROR 410
// mid-stream), drop_watches() (connection closed without the end of the chunked body).
//
// Deterministic: uids are "uid-<n>" (the seeded namespaces' and priority classes'
// "uid-namespace-<name>", "uid-priorityclass-<name>"), lists in key order.
// TLS is terminated by web::TlsFront in front of the plain civetweb listener (tls_front.hpp says
// why). Connections are not kept alive (every request closes its connection), so dropping a stream
// never leaves a client waiting on a half-used connection.
//
// Threads: civetweb serves each request on one of its threads; every method here may be called
// from the test thread at any time (one mutex inside). The destructor ends open watches.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/time.hpp"

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
  // The server's clock (see above); called with the server's mutex held, from its threads.
  std::function<Time()> now;
  // Run kube-controller-manager's garbage collector (above: at once after each write). Off by
  // default, as on the plain API server of a rehearsal: a Background DELETE then leaves the
  // dependents, an Orphan or Foreground one leaves the object marked with its finalizer.
  bool garbage_collector = false;
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

// An RBAC refusal (forbid()): requests with this verb on this resource are answered 403 as the
// RBAC authorizer answers them. Empty fields match anything.
struct Forbidden {
  std::string verb;      // create, get, list, watch, update, patch, delete
  std::string group;     // "batch"; "" is the core group (a rule for it says core = true)
  bool core = false;     // the rule names the core group ("" then means core, not any)
  std::string resource;  // "jobs", "secrets", "pods/log" (a subresource after '/')
  std::string namespace_name;
  std::string user = "system:serviceaccount:default:gantry";  // named in the message
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
  // Deletes it (a force delete, then garbage collection of its dependents); false when absent.
  bool remove(const std::string& collection_path, const std::string& name);
  std::optional<nlohmann::json> get(const std::string& collection_path,
                                    const std::string& name) const;
  int64_t resource_version() const;
  // Blocks until `holds()` is true, evaluating it now and after every write to the server (it
  // may call get() and the like: it runs without the server's lock), or until `limit` passes
  // (then false, and the test fails; never reached by a passing test). For tests that wait on
  // what other threads or processes write (kubelet-sim --exec).
  bool wait_until(const std::function<bool()>& holds,
                  std::chrono::seconds limit = std::chrono::seconds(60)) const;
  // Creates the Namespace `name` (as POST /api/v1/namespaces would); true when it was new.
  bool create_namespace(const std::string& name);

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

  // GET /api/v1/namespaces/NS/pods/NAME/log (the API server proxies it to the pod's kubelet):
  // answered 200 text/plain from `source` (e.g. KubeletSim::container_log), the last
  // `tailLines` lines when asked; 404 without the pod; 400 "container "C" in pod "P" is waiting
  // to start: ContainerCreating" when the source has no log for it. Without a source, the
  // subresource is unknown (404), as before.
  using PodLogSource =
      std::function<std::optional<std::string>(const std::string& ns, const std::string& pod)>;
  void serve_pod_logs(PodLogSource source);

  // ---- faults and records ----
  void inject(Fault fault);
  // Every later matching request is refused 403 Forbidden, as the RBAC authorizer refuses a
  // verb the user's Roles do not grant: `jobs.batch is forbidden: User "U" cannot create
  // resource "jobs" in API group "batch" in the namespace "NS"`, details {group, kind}.
  void forbid(Forbidden rule);
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
