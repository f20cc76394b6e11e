#include "tests/adapters/kube/fake_api_server.hpp"

#include <arpa/inet.h>
#include <civetweb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <list>
#include <map>
#include <stdexcept>
#include <thread>

#include "tests/adapters/kube/fake_api_jobs.hpp"
#include "tests/adapters/kube/fake_api_rules.hpp"
#include "tests/adapters/kube/strategic_merge.hpp"
#include "web/server/http_message.hpp"
#include "web/server/tls_front.hpp"

namespace gantry::kube::testing {

namespace {

using nlohmann::json;

constexpr int64_t kDefaultNow = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z
constexpr const char* kPodsCollection = "/api/v1/pods";
constexpr const char* kNodesCollection = "/api/v1/nodes";
constexpr const char* kNamespacesCollection = "/api/v1/namespaces";
constexpr const char* kPriorityClassesCollection = "/apis/scheduling.k8s.io/v1/priorityclasses";
constexpr const char* kJobsCollection = "/apis/batch/v1/jobs";
constexpr const char* kSecretsCollection = "/api/v1/secrets";
// The finalizer of an owner deleted with propagationPolicy Foreground
// (metav1.FinalizerDeleteDependents).
constexpr const char* kForegroundFinalizer = "foregroundDeletion";

// The namespaces every cluster has.
constexpr const char* kSystemNamespaces[] = {"default", "kube-system", "kube-public",
                                             "kube-node-lease"};

void init_civetweb() {
  static std::once_flag once;
  std::call_once(once, [] { mg_init_library(0); });
}

int quiet_log(const mg_connection*, const char*) { return 1; }

// Opens and closes a TCP connection to 127.0.0.1:port.
void knock(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  (void)::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  ::close(fd);
}

std::string default_reason(int status) {
  switch (status) {
    case 404:
      return "NotFound";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 503:
      return "ServiceUnavailable";
    default:
      return status >= 500 ? "InternalError" : "BadRequest";
  }
}

json status_body(int code, const std::string& reason, const std::string& message,
                 json details = json::object()) {
  json s = {{"kind", "Status"},
            {"apiVersion", "v1"},
            {"metadata", json::object()},
            {"status", code < 400 ? "Success" : "Failure"},
            {"code", code}};
  if (!message.empty()) s["message"] = message;
  if (!reason.empty()) s["reason"] = reason;
  if (!details.empty()) s["details"] = std::move(details);
  return s;
}

struct Answer {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::vector<std::pair<std::string, std::string>> headers;
};

Answer json_answer(int status, const json& body) {
  return {status, body.dump(), "application/json", {}};
}

void send(mg_connection* conn, const Answer& a) {
  std::string head = "HTTP/1.1 " + std::to_string(a.status) + " " + web::status_reason(a.status) +
                     "\r\nContent-Type: " + a.content_type +
                     "\r\nContent-Length: " + std::to_string(a.body.size()) +
                     "\r\nConnection: close\r\n";
  for (const auto& [k, v] : a.headers) head += k + ": " + v + "\r\n";
  head += "\r\n";
  mg_write(conn, head.data(), head.size());
  if (!a.body.empty()) mg_write(conn, a.body.data(), a.body.size());
}

std::map<std::string, std::string> parse_query(const std::string& q) {
  std::map<std::string, std::string> out;
  size_t start = 0;
  while (start <= q.size() && !q.empty()) {
    size_t amp = q.find('&', start);
    if (amp == std::string::npos) amp = q.size();
    const std::string pair = q.substr(start, amp - start);
    const size_t eq = pair.find('=');
    std::string key = pair.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : pair.substr(eq + 1);
    std::vector<char> buf(value.size() + 1);
    const int n = mg_url_decode(value.c_str(), static_cast<int>(value.size()), buf.data(),
                                static_cast<int>(buf.size()), 1);
    out[key] = n >= 0 ? std::string(buf.data(), static_cast<size_t>(n)) : value;
    start = amp + 1;
    if (amp == q.size()) break;
  }
  return out;
}

// A resolved request path.
struct Target {
  std::string collection;  // "/api/v1/pods" style, without the namespace
  std::string ns;          // empty: cluster-scoped or all namespaces
  std::string name;
  std::string subresource;
  bool ok = false;
};

Target resolve(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  Target t;
  size_t i = 0;
  std::string prefix;
  if (parts.size() >= 2 && parts[0] == "api") {
    prefix = "/api/" + parts[1];
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    prefix = "/apis/" + parts[1] + "/" + parts[2];
    i = 3;
  } else {
    return t;
  }
  const size_t rest = parts.size() - i;
  if (rest >= 3 && parts[i] == "namespaces") {
    t.ns = parts[i + 1];
    i += 2;
  }
  if (i >= parts.size()) return t;
  t.collection = prefix + "/" + parts[i];
  if (i + 1 < parts.size()) t.name = parts[i + 1];
  if (i + 2 < parts.size()) t.subresource = parts[i + 2];
  t.ok = i + 3 >= parts.size();
  return t;
}

// Collection paths the way tests write them ("/api/v1/namespaces/default/pods").
Target resolve_collection(const std::string& collection_path) { return resolve(collection_path); }

std::string key_of(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

// A dotted path into an object ("spec.nodeName"); empty string when absent.
std::string field_value(const json& object, const std::string& path) {
  const json* at = &object;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string part =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(part)) return "";
    at = &(*at)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return at->is_string() ? at->get<std::string>() : (at->is_null() ? "" : at->dump());
}

struct Selector {
  struct Term {
    std::string path;
    std::string value;
    bool equal = true;
  };
  std::vector<Term> fields;
  std::vector<Term> labels;

  static std::vector<Term> parse(const std::string& text, bool labels) {
    std::vector<Term> out;
    size_t start = 0;
    while (start < text.size()) {
      size_t comma = text.find(',', start);
      if (comma == std::string::npos) comma = text.size();
      const std::string term = text.substr(start, comma - start);
      Term t;
      size_t op = term.find("!=");
      if (op != std::string::npos) {
        t.equal = false;
        t.path = term.substr(0, op);
        t.value = term.substr(op + 2);
      } else {
        op = term.find("==");
        const size_t width = op != std::string::npos ? 2 : 1;
        if (op == std::string::npos) op = term.find('=');
        t.path = term.substr(0, op);
        t.value = op == std::string::npos ? "" : term.substr(op + width);
      }
      if (labels) t.path = "metadata.labels." + t.path;
      out.push_back(std::move(t));
      start = comma + 1;
    }
    return out;
  }

  bool matches(const json& object) const {
    for (const auto* terms : {&fields, &labels}) {
      for (const Term& t : *terms) {
        std::string v;
        if (t.path.rfind("metadata.labels.", 0) == 0) {
          const std::string label = t.path.substr(16);
          const json& labels_json =
              object.value("metadata", json::object()).value("labels", json::object());
          v = labels_json.contains(label) && labels_json[label].is_string()
                  ? labels_json[label].get<std::string>()
                  : "";
        } else {
          v = field_value(object, t.path);
        }
        if ((v == t.value) != t.equal) return false;
      }
    }
    return true;
  }
};

}  // namespace

struct FakeApiServer::Impl {
  // One change to an object, as a watch sends it.
  struct Event {
    int64_t rv = 0;
    std::string collection;
    std::string ns;
    std::string type;  // ADDED, MODIFIED, DELETED
    json object;
    json old_object;  // MODIFIED: before
  };
  mutable std::mutex mutex;
  mutable std::condition_variable cv;
  bool shutting_down = false;
  int64_t rv = 100;  // the captures' server was near here; any start works
  int64_t uid_counter = 0;
  int64_t compacted_rv = 0;
  int64_t continue_epoch = 0;
  // collection → key → object
  std::map<std::string, std::map<std::string, json>> objects;
  std::vector<Event> log;
  int64_t expire_generation = 0;
  int64_t drop_generation = 0;
  int open_watches = 0;
  int64_t watches_started = 0;
  // For wait_watches_caught_up(): each open watch's position in the log and whether it waits.
  struct WatchProgress {
    const size_t* next;
    bool waiting = false;
  };
  std::list<WatchProgress*> watch_progress;
  std::condition_variable progress_cv;         // a watch went waiting
  std::map<std::string, int64_t> watch_lines;  // by request path, lines written
  std::vector<Fault> faults;
  int evictions_refused = 0;  // refuse_evictions()
  std::optional<int> eviction_retry_after;
  std::string eviction_refused_pod;
  int held = 0;
  int64_t release_generation = 0;
  std::vector<RecordedRequest> requests;
  std::vector<Forbidden> forbidden;      // forbid()
  FakeApiServer::PodLogSource pod_logs;  // serve_pod_logs()
  bool garbage_collector = false;        // FakeApiServerOptions::garbage_collector

  std::function<Time()> clock;  // FakeApiServerOptions::now, or the fixed instant

  // ---- reads and writes (mutex held) ----
  Time now() const { return clock ? clock() : Time::from_micros(kDefaultNow); }

  bool namespace_exists(const std::string& ns) const {
    const auto it = objects.find(kNamespacesCollection);
    return it != objects.end() && it->second.count(ns) != 0;
  }

  PriorityClasses priority_classes() const {
    const auto it = objects.find(kPriorityClassesCollection);
    return it == objects.end() ? PriorityClasses{}
                               : PriorityClasses(it->second.begin(), it->second.end());
  }

  // An object every cluster has from its start: no watch event, a uid of its own.
  void seed(const std::string& collection, json object, const std::string& kind) {
    const std::string name = object["metadata"]["name"];
    object["metadata"]["uid"] = "uid-" + kind + "-" + name;
    object["metadata"]["resourceVersion"] = "1";
    object["metadata"]["creationTimestamp"] = format_rfc3339(now());
    objects[collection][name] = std::move(object);
  }

  // `system`: a write of the server's own (a deletion's mark); other writes keep the marks of a
  // deletion in progress, which no client can change (rest.BeforeUpdate).
  json store(const std::string& collection, const std::string& ns, json object, bool create,
             bool system = false) {
    json& meta = object["metadata"];
    if (!ns.empty()) meta["namespace"] = ns;
    const std::string key = key_of(ns, meta.value("name", ""));
    auto& bucket = objects[collection];
    const auto it = bucket.find(key);
    json old;
    if (it != bucket.end()) {
      old = it->second;
      meta["uid"] = old["metadata"]["uid"];
      meta["creationTimestamp"] = old["metadata"]["creationTimestamp"];
      if (!system) {
        for (const char* k : {"deletionTimestamp", "deletionGracePeriodSeconds"}) {
          if (old["metadata"].contains(k)) {
            meta[k] = old["metadata"][k];
          } else {
            meta.erase(k);
          }
        }
      }
    } else {
      meta["uid"] = "uid-" + std::to_string(++uid_counter);
      meta["creationTimestamp"] = format_rfc3339(now());
    }
    meta["resourceVersion"] = std::to_string(++rv);
    bucket[key] = object;
    log.push_back(
        {rv, collection, ns, old.is_null() || create ? "ADDED" : "MODIFIED", object, old});
    cv.notify_all();
    return object;
  }

  json erase(const std::string& collection, const std::string& key) {
    auto& bucket = objects[collection];
    json object = bucket.at(key);
    bucket.erase(key);
    object["metadata"]["resourceVersion"] = std::to_string(++rv);
    log.push_back(
        {rv, collection, object["metadata"].value("namespace", ""), "DELETED", object, json()});
    cv.notify_all();
    return object;
  }

  // The garbage collector (pkg/controller/garbagecollector), run at once after a delete
  // instead of from its own informers: an object all of whose owners (metadata.ownerReferences,
  // by uid) are gone is deleted as a Background delete deletes it (a pod gracefully); an owner
  // marked for Foreground deletion (deletionTimestamp and the foregroundDeletion finalizer) has
  // its dependents deleted and goes itself once none is left. Repeats until nothing changes (a
  // dependent's own dependents).
  void collect_garbage() {
    if (!garbage_collector) return;
    for (bool changed = true; changed;) {
      changed = false;
      std::map<std::string, std::pair<std::string, std::string>> by_uid;  // uid → where
      for (const auto& [collection, bucket] : objects)
        for (const auto& [key, o] : bucket)
          by_uid[o["metadata"].value("uid", "")] = {collection, key};
      std::vector<std::pair<std::string, std::string>> doomed;
      std::map<std::string, int> dependents;  // owner uid → dependents left
      for (const auto& [collection, bucket] : objects) {
        for (const auto& [key, o] : bucket) {
          const json refs = o["metadata"].value("ownerReferences", json::array());
          if (!refs.is_array() || refs.empty()) continue;
          bool any_owner = false;
          for (const json& r : refs) {
            const std::string uid = r.value("uid", "");
            if (by_uid.count(uid)) {
              any_owner = true;
              ++dependents[uid];
            }
          }
          if (!any_owner) doomed.emplace_back(collection, key);
        }
      }
      // Dependents of owners being deleted in the foreground go too; the owner once alone.
      for (const auto& [uid, where] : by_uid) {
        const json& o = objects[where.first][where.second];
        const json fin = o["metadata"].value("finalizers", json::array());
        if (!o["metadata"].contains("deletionTimestamp") || !fin.is_array() ||
            std::find(fin.begin(), fin.end(), kForegroundFinalizer) == fin.end())
          continue;
        if (dependents[uid] == 0) {
          doomed.push_back(where);
          continue;
        }
        for (const auto& [collection, bucket] : objects)
          for (const auto& [key, d] : bucket)
            for (const json& r : d["metadata"].value("ownerReferences", json::array()))
              if (r.value("uid", "") == uid) doomed.emplace_back(collection, key);
      }
      for (const auto& [collection, key] : doomed) {
        const auto it = objects[collection].find(key);
        if (it == objects[collection].end()) continue;
        if (collection == kPodsCollection) {
          if (it->second["metadata"].contains("deletionTimestamp")) continue;  // on its way
          delete_pod(key, json::object());
        } else if (it->second["metadata"].contains("deletionTimestamp") &&
                   !is_foreground_owner_alone(it->second, dependents)) {
          continue;
        } else {
          erase(collection, key);
        }
        changed = true;
      }
    }
  }

  static bool is_foreground_owner_alone(const json& o, std::map<std::string, int>& dependents) {
    return dependents[o["metadata"].value("uid", "")] == 0;
  }

  // The real GC's orphaning: dependents lose their ownerReferences to `owner_uid`.
  void orphan_dependents(const std::string& owner_uid) {
    std::vector<std::tuple<std::string, std::string, json>> changed;
    for (const auto& [collection, bucket] : objects) {
      for (const auto& [key, o] : bucket) {
        const json refs = o["metadata"].value("ownerReferences", json::array());
        if (!refs.is_array()) continue;
        json kept = json::array();
        for (const json& r : refs)
          if (r.value("uid", "") != owner_uid) kept.push_back(r);
        if (kept.size() == refs.size()) continue;
        json updated = o;
        if (kept.empty()) {
          updated["metadata"].erase("ownerReferences");
        } else {
          updated["metadata"]["ownerReferences"] = kept;
        }
        changed.emplace_back(collection, o["metadata"].value("namespace", ""), updated);
      }
    }
    for (auto& [collection, ns, o] : changed) store(collection, ns, o, false, true);
  }

  // A DELETE of a pod with DeleteOptions `options` (rest.BeforeDelete with the pod strategy's
  // CheckGracefulDelete; fake_api_rules.hpp): deleted at once, marked for deletion, its grace
  // shortened, or left as it is (a deletion already pending with no shorter grace). Returns the
  // pod as the server answers it.
  json delete_pod(const std::string& key, const json& options) {
    json pod = objects[kPodsCollection].at(key);
    json& meta = pod["metadata"];
    const std::string ns = meta.value("namespace", "");
    const Time at = now();
    std::optional<int64_t> asked;
    if (options.is_object() && options.contains("gracePeriodSeconds") &&
        options["gracePeriodSeconds"].is_number_integer()) {
      asked = options["gracePeriodSeconds"].get<int64_t>();
      if (*asked < 0) asked = 1;  // a negative grace counts as 1 s
    }
    int64_t period = 0;
    Time deadline = at;
    if (meta.contains("deletionTimestamp")) {
      const int64_t current = meta.value("deletionGracePeriodSeconds", int64_t{0});
      if (current > 0) {
        if (!asked || *asked >= current) return pod;  // graceful deletion is pending
        Time marked = at;
        parse_rfc3339(meta["deletionTimestamp"].get<std::string>(), marked);
        period = *asked;
        deadline = marked - seconds(current) + seconds(period);
        if (deadline < at) {
          deadline = at;
          if (period != 0) period = 1;
        }
      }
    } else {
      period = pod_grace_period(pod, options);
      deadline = at + seconds(period);
    }
    meta["deletionTimestamp"] = format_rfc3339(deadline);
    meta["deletionGracePeriodSeconds"] = period;
    if (period > 0) return store(kPodsCollection, ns, pod, false, true);
    objects[kPodsCollection][key] = pod;
    return erase(kPodsCollection, key);
  }
};

FakeApiServer::FakeApiServer(FakeApiServerOptions options) : impl_(new Impl) {
  impl_->clock = std::move(options.now);
  impl_->garbage_collector = options.garbage_collector;
  for (const char* ns : kSystemNamespaces)
    impl_->seed(kNamespacesCollection,
                admit_namespace(
                    {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}),
                "namespace");
  for (const auto& [name, pc] : system_priority_classes())
    impl_->seed(kPriorityClassesCollection, pc, "priorityclass");
  init_civetweb();
  tls_ = !options.tls_pem_file.empty();
  const std::string ports = "127.0.0.1:0";
  const std::string threads = std::to_string(options.threads);
  std::vector<const char*> opts = {
      "listening_ports",   ports.c_str(), "num_threads",        threads.c_str(),
      "enable_keep_alive", "no",          "request_timeout_ms", "60000"};
  opts.push_back(nullptr);
  mg_callbacks callbacks{};
  callbacks.log_message = quiet_log;
  ctx_ = mg_start(&callbacks, this, opts.data());
  if (ctx_ == nullptr) {
    delete impl_;
    throw std::runtime_error("fake API server: cannot start civetweb");
  }
  mg_server_port info[2] = {};
  if (mg_get_server_ports(ctx_, 2, info) > 0) port_ = info[0].port;
  mg_set_request_handler(ctx_, "/", &FakeApiServer::on_request, this);
  if (tls_) {
    try {
      proxy_ = std::make_unique<web::TlsFront>(
          web::TlsFrontOptions{"127.0.0.1", 0, options.tls_pem_file, options.tls_pem_file,
                               options.client_ca_file, port_});
    } catch (...) {
      mg_stop(ctx_);
      delete impl_;
      throw;
    }
  }
}

FakeApiServer::~FakeApiServer() {
  {
    std::lock_guard lock(impl_->mutex);
    impl_->shutting_down = true;
  }
  impl_->cv.notify_all();
  proxy_.reset();
  // civetweb's master thread notices the stop only when its poll() returns, which it does
  // every 2 s or on a new connection: knock until mg_stop() has returned.
  std::mutex m;
  std::condition_variable stopped_cv;
  bool stopped = false;
  std::thread stopper([&] {
    mg_stop(ctx_);
    std::lock_guard lock(m);
    stopped = true;
    stopped_cv.notify_all();
  });
  std::unique_lock lock(m);
  while (!stopped) {
    lock.unlock();
    knock(port_);
    lock.lock();
    stopped_cv.wait_for(lock, std::chrono::milliseconds(20), [&] { return stopped; });
  }
  lock.unlock();
  stopper.join();
  delete impl_;
}

std::string FakeApiServer::url() const {
  return tls_ ? "https://127.0.0.1:" + std::to_string(proxy_->port())
              : "http://127.0.0.1:" + std::to_string(port_);
}

json FakeApiServer::apply(const std::string& collection_path, json object) {
  const Target t = resolve_collection(collection_path);
  if (t.collection.empty()) throw std::invalid_argument("not a collection: " + collection_path);
  std::lock_guard lock(impl_->mutex);
  return impl_->store(t.collection, t.ns, std::move(object), false);
}

bool FakeApiServer::remove(const std::string& collection_path, const std::string& name) {
  const Target t = resolve_collection(collection_path);
  std::lock_guard lock(impl_->mutex);
  const std::string key = key_of(t.ns, name);
  if (!impl_->objects[t.collection].count(key)) return false;
  impl_->erase(t.collection, key);
  impl_->collect_garbage();
  return true;
}

std::optional<json> FakeApiServer::get(const std::string& collection_path,
                                       const std::string& name) const {
  const Target t = resolve_collection(collection_path);
  std::lock_guard lock(impl_->mutex);
  const auto c = impl_->objects.find(t.collection);
  if (c == impl_->objects.end()) return std::nullopt;
  const auto it = c->second.find(key_of(t.ns, name));
  if (it == c->second.end()) return std::nullopt;
  return it->second;
}

int64_t FakeApiServer::resource_version() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->rv;
}

bool FakeApiServer::wait_until(const std::function<bool()>& holds,
                               std::chrono::seconds limit) const {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    int64_t seen = 0;
    {
      std::lock_guard lock(impl_->mutex);
      seen = impl_->rv;
    }
    if (holds()) return true;
    std::unique_lock lock(impl_->mutex);
    if (!impl_->cv.wait_until(lock, deadline, [&] { return impl_->rv != seen; })) return false;
  }
}

bool FakeApiServer::create_namespace(const std::string& name) {
  std::lock_guard lock(impl_->mutex);
  if (impl_->namespace_exists(name)) return false;
  impl_->store(kNamespacesCollection, "",
               admit_namespace(
                   {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}),
               true);
  return true;
}

void FakeApiServer::send_bookmarks() {
  std::lock_guard lock(impl_->mutex);
  // A marker in the log, so that the bookmark reaches each watch in order with the events.
  impl_->log.push_back({impl_->rv, "", "", "BOOKMARK", json(), json()});
  impl_->cv.notify_all();
}

void FakeApiServer::compact() {
  std::lock_guard lock(impl_->mutex);
  impl_->compacted_rv = impl_->rv;
  ++impl_->continue_epoch;
}

void FakeApiServer::expire_watches() {
  std::lock_guard lock(impl_->mutex);
  ++impl_->expire_generation;
  impl_->cv.notify_all();
}

void FakeApiServer::drop_watches() {
  std::lock_guard lock(impl_->mutex);
  ++impl_->drop_generation;
  impl_->cv.notify_all();
}

void FakeApiServer::wait_watches_caught_up() const {
  std::unique_lock lock(impl_->mutex);
  impl_->progress_cv.wait(lock, [&] {
    for (const Impl::WatchProgress* w : impl_->watch_progress)
      if (!w->waiting || *w->next != impl_->log.size()) return false;
    return true;
  });
}

int64_t FakeApiServer::watch_lines_written(const std::string& path,
                                           const std::string& field_selector,
                                           const std::string& label_selector) const {
  std::lock_guard lock(impl_->mutex);
  const auto it = impl_->watch_lines.find(path + "?" + field_selector + "?" + label_selector);
  return it == impl_->watch_lines.end() ? 0 : it->second;
}

int FakeApiServer::open_watches() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->open_watches;
}

int64_t FakeApiServer::watches_started() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->watches_started;
}

bool FakeApiServer::wait_for_watches_started(int64_t n) const {
  std::unique_lock lock(impl_->mutex);
  return impl_->cv.wait_for(lock, std::chrono::seconds(30),
                            [&] { return impl_->watches_started >= n; });
}

void FakeApiServer::inject(Fault fault) {
  std::lock_guard lock(impl_->mutex);
  impl_->faults.push_back(std::move(fault));
}

void FakeApiServer::serve_pod_logs(PodLogSource source) {
  std::lock_guard lock(impl_->mutex);
  impl_->pod_logs = std::move(source);
}

void FakeApiServer::forbid(Forbidden rule) {
  std::lock_guard lock(impl_->mutex);
  impl_->forbidden.push_back(std::move(rule));
}

void FakeApiServer::refuse_evictions(int times, std::optional<int> retry_after_seconds,
                                     std::string pod) {
  std::lock_guard lock(impl_->mutex);
  impl_->evictions_refused = times;
  impl_->eviction_retry_after = retry_after_seconds;
  impl_->eviction_refused_pod = std::move(pod);
}

int FakeApiServer::held() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->held;
}

bool FakeApiServer::wait_for_held(int n) const {
  std::unique_lock lock(impl_->mutex);
  return impl_->cv.wait_for(lock, std::chrono::seconds(30), [&] { return impl_->held >= n; });
}

void FakeApiServer::release_held() {
  std::lock_guard lock(impl_->mutex);
  ++impl_->release_generation;
  impl_->cv.notify_all();
}

std::vector<RecordedRequest> FakeApiServer::requests() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->requests;
}

void FakeApiServer::clear_requests() {
  std::lock_guard lock(impl_->mutex);
  impl_->requests.clear();
}

int FakeApiServer::on_request(mg_connection* conn, void* self) {
  return static_cast<FakeApiServer*>(self)->handle(conn);
}

namespace {

// The semantics of one request, with the mutex held. Returns nullopt for a watch (streamed
// by the caller).
struct Request {
  std::string method;
  std::string path;
  std::map<std::string, std::string> query;
  std::map<std::string, std::string> headers;
  std::string body;
  bool watch = false;
  bool status_only = false;  // a write through the status subresource
};

// The RBAC verb of a request (k8s.io/apiserver RequestInfoFactory).
std::string verb_of(const Request& r, const Target& t) {
  if (r.method == "GET") return r.watch ? "watch" : (t.name.empty() ? "list" : "get");
  if (r.method == "POST") return "create";
  if (r.method == "PUT") return "update";
  if (r.method == "PATCH") return "patch";
  if (r.method == "DELETE") return t.name.empty() ? "deletecollection" : "delete";
  return r.method;
}

// The group of a collection path: "/apis/batch/v1/jobs" → "batch", "/api/v1/pods" → "".
std::string group_of(const std::string& collection) {
  if (collection.rfind("/apis/", 0) != 0) return "";
  return collection.substr(6, collection.find('/', 6) - 6);
}

Answer not_found(const Target& t) {
  return json_answer(
      404, status_body(
               404, "NotFound",
               t.collection.substr(t.collection.rfind('/') + 1) + " \"" + t.name + "\" not found",
               {{"name", t.name}, {"kind", t.collection.substr(t.collection.rfind('/') + 1)}}));
}

Answer list(FakeApiServer::Impl&, const Target&, const Request&);

}  // namespace

// Kept out of the anonymous namespace: it needs Impl.
static Answer serve(FakeApiServer::Impl& s, const Target& t, const Request& r);
static void stream_watch(FakeApiServer::Impl& s, mg_connection* conn, const Target& t,
                         const Request& r);

int FakeApiServer::handle(mg_connection* conn) {
  const mg_request_info* info = mg_get_request_info(conn);
  Request r;
  r.method = info->request_method != nullptr ? info->request_method : "";
  r.path = info->local_uri != nullptr ? info->local_uri : "";
  const std::string raw_query = info->query_string != nullptr ? info->query_string : "";
  r.query = parse_query(raw_query);
  for (int i = 0; i < info->num_headers; ++i) {
    std::string name = info->http_headers[i].name;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    r.headers[name] = info->http_headers[i].value;
  }
  char buf[8192];
  while (true) {
    const int got = mg_read(conn, buf, sizeof buf);
    if (got <= 0) break;
    r.body.append(buf, static_cast<size_t>(got));
  }
  const auto w = r.query.find("watch");
  r.watch = r.method == "GET" && w != r.query.end() && (w->second == "true" || w->second == "1");

  std::optional<Fault> fault;
  {
    std::lock_guard lock(impl_->mutex);
    impl_->requests.push_back({r.method, r.path, raw_query, r.headers, r.body});
    for (auto it = impl_->faults.begin(); it != impl_->faults.end(); ++it) {
      if (!it->method.empty() && it->method != r.method) continue;
      if (r.path.rfind(it->path_prefix, 0) != 0) continue;
      if (!it->query_contains.empty() && raw_query.find(it->query_contains) == std::string::npos)
        continue;
      if (it->match == Fault::Match::kWatch && !r.watch) continue;
      if (it->match == Fault::Match::kNotWatch && r.watch) continue;
      fault = *it;
      if (--it->times <= 0) impl_->faults.erase(it);
      break;
    }
  }
  if (fault) {
    if (fault->hold) {
      std::unique_lock lock(impl_->mutex);
      const int64_t seen = impl_->release_generation;
      ++impl_->held;
      impl_->cv.notify_all();
      impl_->cv.wait(lock,
                     [&] { return impl_->shutting_down || impl_->release_generation != seen; });
      --impl_->held;
    }
    if (fault->delay_ms > 0) {
      std::unique_lock lock(impl_->mutex);
      impl_->cv.wait_for(lock, std::chrono::milliseconds(fault->delay_ms),
                         [&] { return impl_->shutting_down; });
    }
    if (fault->drop) return 1;  // nothing written; the connection closes
    if (fault->endless_body) {
      const std::string head =
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: "
          "chunked\r\nConnection: close\r\n\r\n";
      mg_write(conn, head.data(), head.size());
      const std::string start = R"({"kind":"List","apiVersion":"v1","items":[)";
      const std::string filler(64 << 10, ' ');
      bool open = mg_send_chunk(conn, start.data(), static_cast<unsigned>(start.size())) > 0;
      while (open) {
        {
          std::lock_guard lock(impl_->mutex);
          if (impl_->shutting_down) break;
        }
        open = mg_send_chunk(conn, filler.data(), static_cast<unsigned>(filler.size())) > 0;
      }
      return 200;
    }
    if (fault->status != 0) {
      Answer a;
      a.status = fault->status;
      a.content_type = fault->content_type;
      a.body = !fault->body.empty() ? fault->body
                                    : status_body(fault->status, default_reason(fault->status),
                                                  "injected by the test")
                                          .dump();
      if (fault->retry_after_seconds)
        a.headers.emplace_back("Retry-After", std::to_string(*fault->retry_after_seconds));
      send(conn, a);
      return a.status;
    }
  }

  const Target t = resolve(r.path);
  if (!t.ok) {
    send(conn, json_answer(404, status_body(404, "NotFound",
                                            "the server could not find the "
                                            "requested resource")));
    return 404;
  }
  {
    // RBAC (forbid()): checked before anything else, as the authorizer runs before the handler.
    std::lock_guard lock(impl_->mutex);
    const std::string verb = verb_of(r, t);
    const std::string group = group_of(t.collection);
    std::string resource = t.collection.substr(t.collection.rfind('/') + 1);
    if (!t.subresource.empty()) resource += "/" + t.subresource;
    for (const Forbidden& f : impl_->forbidden) {
      if ((!f.verb.empty() && f.verb != verb) || (!f.resource.empty() && f.resource != resource) ||
          (!f.namespace_name.empty() && f.namespace_name != t.ns) ||
          ((f.core || !f.group.empty()) && f.group != group))
        continue;
      // pkg/registry/rbac/validation and the forbidden handler (apiserver endpoints/handlers/
      // responsewriters.ForbiddenStatusError): "RESOURCE.GROUP is forbidden: User ... cannot".
      const std::string base = t.collection.substr(t.collection.rfind('/') + 1);
      const std::string qualified = group.empty() ? base : base + "." + group;
      std::string message = qualified + (t.name.empty() ? "" : " \"" + t.name + "\"") +
                            " is forbidden: User \"" + f.user + "\" cannot " + verb +
                            " resource \"" + resource + "\" in API group \"" + group + "\"";
      message += t.ns.empty() ? " at the cluster scope" : " in the namespace \"" + t.ns + "\"";
      json details = {{"group", group}, {"kind", base}};
      if (!t.name.empty()) details["name"] = t.name;
      const Answer a = json_answer(403, status_body(403, "Forbidden", message, details));
      send(conn, a);
      return 403;
    }
  }
  if (r.watch) {
    stream_watch(*impl_, conn, t, r);
    return 200;
  }
  bool logs_served = false;
  {
    std::lock_guard lock(impl_->mutex);
    logs_served = static_cast<bool>(impl_->pod_logs);
  }
  if (logs_served && t.collection == kPodsCollection && t.subresource == "log" &&
      r.method == "GET") {
    // Asked of the pod's kubelet: the source is called without the server's lock.
    std::optional<json> pod;
    PodLogSource source;
    {
      std::lock_guard lock(impl_->mutex);
      const auto& bucket = impl_->objects[kPodsCollection];
      if (const auto it = bucket.find(key_of(t.ns, t.name)); it != bucket.end()) pod = it->second;
      source = impl_->pod_logs;
    }
    if (!pod) {
      send(conn, not_found(t));
      return 404;
    }
    std::optional<std::string> log = source ? source(t.ns, t.name) : std::nullopt;
    if (!log) {
      const json containers = (*pod)["spec"].value("containers", json::array());
      const std::string container =
          containers.empty() ? std::string() : containers[0].value("name", "");
      send(conn, json_answer(400, status_body(400, "BadRequest",
                                              "container \"" + container + "\" in pod \"" + t.name +
                                                  "\" is waiting to start: ContainerCreating")));
      return 400;
    }
    if (const auto tail = r.query.find("tailLines"); tail != r.query.end()) {
      const int64_t lines = std::strtoll(tail->second.c_str(), nullptr, 10);
      size_t start = log->size();
      for (int64_t n = 0; start > 0;) {
        if ((*log)[start - 1] == '\n' && start != log->size() && ++n == lines) break;
        --start;
      }
      *log = log->substr(start);
    }
    send(conn, Answer{200, *log, "text/plain", {}});
    return 200;
  }
  Answer a;
  {
    std::lock_guard lock(impl_->mutex);
    a = serve(*impl_, t, r);
  }
  send(conn, a);
  return a.status;
}

namespace {

Answer list(FakeApiServer::Impl& s, const Target& t, const Request& r) {
  Selector sel;
  if (auto it = r.query.find("fieldSelector"); it != r.query.end())
    sel.fields = Selector::parse(it->second, false);
  if (auto it = r.query.find("labelSelector"); it != r.query.end())
    sel.labels = Selector::parse(it->second, true);
  int64_t limit = 0;
  if (auto it = r.query.find("limit"); it != r.query.end()) limit = std::stoll(it->second);
  std::string after;
  int64_t list_rv = s.rv;
  if (auto it = r.query.find("continue"); it != r.query.end() && !it->second.empty()) {
    // token: "<epoch>:<rv>:<last key>"
    const std::string& token = it->second;
    const size_t a = token.find(':');
    const size_t b = token.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos)
      return json_answer(400, status_body(400, "BadRequest", "invalid continue token"));
    const int64_t epoch = std::stoll(token.substr(0, a));
    list_rv = std::stoll(token.substr(a + 1, b - a - 1));
    after = token.substr(b + 1);
    if (epoch != s.continue_epoch) {
      json body = status_body(
          410, "Expired",
          "The provided continue parameter is too old to display a consistent list result. You "
          "can start a new list without the continue parameter, or use the continue token in "
          "this response to retrieve the remainder of the results. Continuing with the provided "
          "token results in an inconsistent list - objects that were created, modified, or "
          "deleted between the time the first chunk was returned and now may show up in the "
          "list.");
      body["metadata"] = {{"continue", std::to_string(s.continue_epoch) + ":" +
                                           std::to_string(s.rv) + ":" + after}};
      return json_answer(410, body);
    }
  }
  json items = json::array();
  std::string last;
  bool more = false;
  const auto c = s.objects.find(t.collection);
  if (c != s.objects.end()) {
    for (auto it = after.empty() ? c->second.begin() : c->second.upper_bound(after);
         it != c->second.end(); ++it) {
      const json& o = it->second;
      if (!t.ns.empty() && o["metadata"].value("namespace", "") != t.ns) continue;
      if (!sel.matches(o)) continue;
      if (limit > 0 && static_cast<int64_t>(items.size()) >= limit) {
        more = true;
        break;
      }
      items.push_back(o);
      last = it->first;
    }
  }
  json meta = {{"resourceVersion", std::to_string(list_rv)}};
  if (more)
    meta["continue"] =
        std::to_string(s.continue_epoch) + ":" + std::to_string(list_rv) + ":" + last;
  const std::string resource = t.collection.substr(t.collection.rfind('/') + 1);
  return json_answer(
      200, {{"kind", "List"}, {"apiVersion", "v1"}, {"metadata", meta}, {"items", items}});
}

Answer conflict(const std::string& what, const std::string& message, const std::string& name,
                const std::string& kind) {
  return json_answer(
      409, status_body(409, "Conflict",
                       "Operation cannot be fulfilled on " + what + " \"" + name + "\": " + message,
                       {{"name", name}, {"kind", kind}}));
}

}  // namespace

static Answer serve(FakeApiServer::Impl& s, const Target& t, const Request& r) {
  const std::string resource = t.collection.substr(t.collection.rfind('/') + 1);
  auto& bucket = s.objects[t.collection];
  const std::string key = key_of(t.ns, t.name);
  json body;
  if (!r.body.empty()) {
    body = json::parse(r.body, nullptr, false);
    if (body.is_discarded())
      return json_answer(400, status_body(400, "BadRequest", "the body is not JSON"));
  }

  if (t.subresource == "eviction" && r.method == "POST") {
    // As kube-apiserver's eviction REST handler: the body names the pod, the pod must exist,
    // the uid precondition holds, the disruption budget allows it; then the pod is deleted.
    const json meta = body.is_object() ? body.value("metadata", json::object()) : json::object();
    if (meta.value("name", "") != t.name)
      return json_answer(400, status_body(400, "BadRequest",
                                          "name in URL does not match name in Eviction object"));
    const auto it = bucket.find(key);
    if (it == bucket.end()) return not_found(t);
    const json options = body.value("deleteOptions", json::object());
    const json pre =
        options.is_object() ? options.value("preconditions", json::object()) : json::object();
    if (pre.contains("uid") && pre["uid"] != it->second["metadata"]["uid"])
      return conflict("pods",
                      "Precondition failed: UID in precondition: " + pre["uid"].dump() +
                          ", UID in object meta: " + it->second["metadata"]["uid"].dump(),
                      t.name, "pods");
    if (s.evictions_refused > 0 &&
        (s.eviction_refused_pod.empty() || s.eviction_refused_pod == t.name)) {
      --s.evictions_refused;
      Answer a = json_answer(
          429, status_body(429, "TooManyRequests",
                           "Cannot evict pod as it would violate the pod's disruption budget.",
                           {{"causes",
                             {{{"reason", "DisruptionBudget"},
                               {"message",
                                "The disruption budget fake-pdb needs 1 healthy pods and has 1 "
                                "currently"}}}}}));
      if (s.eviction_retry_after)
        a.headers.emplace_back("Retry-After", std::to_string(*s.eviction_retry_after));
      return a;
    }
    s.delete_pod(key, options);
    return json_answer(201, status_body(201, "", ""));
  }
  if (t.subresource == "binding" && r.method == "POST") {
    const auto it = bucket.find(key);
    if (it == bucket.end()) return not_found(t);
    json& pod = it->second;
    const std::string uid = body.value("metadata", json::object()).value("uid", "");
    if (!uid.empty() && uid != pod["metadata"].value("uid", ""))
      return conflict("pods/binding", "the UID in the precondition does not match", t.name,
                      "pods/binding");
    const std::string assigned = pod.value("spec", json::object()).value("nodeName", "");
    if (!assigned.empty())
      return conflict("pods/binding",
                      "pod " + t.name + " is already assigned to node \"" + assigned + "\"", t.name,
                      "pods/binding");
    json updated = pod;
    updated["spec"]["nodeName"] = body.value("target", json::object()).value("name", "");
    // The binding's annotations land on the pod in the same write, as kube-apiserver does.
    const json meta = body.value("metadata", json::object());
    if (meta.contains("annotations") && meta["annotations"].is_object())
      for (const auto& [k, v] : meta["annotations"].items())
        updated["metadata"]["annotations"][k] = v;
    // podutil.UpdatePodCondition: PodScheduled replaces its namesake, the others stay.
    updated = strategic_merge(updated, {{"status",
                                         {{"conditions",
                                           {{{"type", "PodScheduled"},
                                             {"status", "True"},
                                             {"lastProbeTime", nullptr},
                                             {"lastTransitionTime", format_rfc3339(s.now())}}}}}}});
    s.store(t.collection, t.ns, updated, false);
    return json_answer(201, status_body(201, "", ""));
  }
  if (t.subresource == "status" && !t.name.empty() &&
      (r.method == "GET" || r.method == "PATCH" || r.method == "PUT")) {
    // The status subresource: only status (and a uid precondition, resourceVersion) counts;
    // the rest of the body is ignored, as on the real server.
    Target whole = t;
    whole.subresource.clear();
    Request only_status = r;
    only_status.status_only = true;
    if (body.is_object()) {
      json kept = json::object();
      if (body.contains("status")) kept["status"] = body["status"];
      if (body.contains("metadata") && body["metadata"].is_object()) {
        for (const char* k : {"uid", "resourceVersion", "name", "namespace"})
          if (body["metadata"].contains(k)) kept["metadata"][k] = body["metadata"][k];
      }
      if (r.method == "PUT") {
        const auto it = bucket.find(key);
        if (it == bucket.end()) return not_found(t);
        json full = it->second;
        full["status"] = kept.value("status", json::object());
        if (kept.contains("metadata") && kept["metadata"].contains("resourceVersion"))
          full["metadata"]["resourceVersion"] = kept["metadata"]["resourceVersion"];
        kept = full;
      }
      only_status.body = kept.dump();
    }
    return serve(s, whole, only_status);
  }
  if (!t.subresource.empty())
    return json_answer(404, status_body(404, "NotFound", "no such subresource"));

  if (r.method == "GET" && t.name.empty()) return list(s, t, r);
  if (r.method == "GET") {
    const auto it = bucket.find(key);
    if (it == bucket.end()) return not_found(t);
    return json_answer(200, it->second);
  }
  if (r.method == "POST" && t.name.empty()) {
    if (body.is_object() && body.contains("metadata") && body["metadata"].is_object() &&
        body["metadata"].value("name", "").empty() &&
        !body["metadata"].value("generateName", "").empty()) {
      // names.SimpleNameGenerator: the prefix + 5 characters of utilrand's alphabet; here from
      // the uid counter, so a test knows them.
      std::string suffix;
      for (int64_t n = s.uid_counter + 1, i = 0; i < 5; ++i, n /= 27)
        suffix += "bcdfghjklmnpqrstvwxz2456789"[(n * 7 + i * 11) % 27];
      body["metadata"]["name"] = body["metadata"]["generateName"].get<std::string>() + suffix;
    }
    if (!body.is_object() || !body.contains("metadata") ||
        body["metadata"].value("name", "").empty())
      return json_answer(422, status_body(422, "Invalid", "metadata.name: Required value"));
    const std::string name = body["metadata"]["name"];
    // Admission first (NamespaceLifecycle, then the kind's plugins), then the store's 409.
    if (!t.ns.empty() && !s.namespace_exists(t.ns))
      return json_answer(404, status_body(404, "NotFound", "namespaces \"" + t.ns + "\" not found",
                                          {{"name", t.ns}, {"kind", "namespaces"}}));
    json admitted = body;
    if (t.collection == kPodsCollection) {
      // The token volume's suffix from the uid the pod is about to get: deterministic.
      std::string suffix;
      for (int64_t n = s.uid_counter + 1, i = 0; i < 5; ++i, n /= 27)
        suffix += "bcdfghjklmnpqrstvwxz2456789"[n % 27];
      auto result = admit_pod(body, s.priority_classes(), suffix);
      if (const Refusal* no = std::get_if<Refusal>(&result))
        return json_answer(no->code, status_body(no->code, no->reason, no->message, no->details));
      admitted = std::get<json>(std::move(result));
    } else if (t.collection == kNodesCollection) {
      admitted = admit_node(body);
    } else if (t.collection == kPriorityClassesCollection) {
      admitted = admit_priority_class(body);
    } else if (t.collection == kNamespacesCollection) {
      admitted = admit_namespace(body);
    } else if (t.collection == kJobsCollection || t.collection == kSecretsCollection) {
      // The uid store() is about to give: the Job's generated selector names it.
      auto result = t.collection == kJobsCollection
                        ? admit_job(body, "uid-" + std::to_string(s.uid_counter + 1))
                        : admit_secret(body);
      if (const Refusal* no = std::get_if<Refusal>(&result))
        return json_answer(no->code, status_body(no->code, no->reason, no->message, no->details));
      admitted = std::get<json>(std::move(result));
    }
    if (bucket.count(key_of(t.ns, name)))
      return json_answer(
          409, status_body(409, "AlreadyExists", resource + " \"" + name + "\" already exists",
                           {{"name", name}, {"kind", resource}}));
    json created = s.store(t.collection, t.ns, admitted, true);
    s.collect_garbage();  // an object whose owners are all gone is the collector's at once
    return json_answer(201, created);
  }
  if (r.method == "PUT" && !t.name.empty()) {
    const auto it = bucket.find(key);
    if (it == bucket.end()) return not_found(t);
    const std::string want = body.value("metadata", json::object()).value("resourceVersion", "");
    if (!want.empty() && want != it->second["metadata"].value("resourceVersion", ""))
      return conflict(resource,
                      "the object has been modified; please apply your changes to the "
                      "latest version and try again",
                      t.name, resource);
    if (t.collection == kJobsCollection && !r.status_only) {
      auto result = update_job(body, it->second);
      if (const Refusal* no = std::get_if<Refusal>(&result))
        return json_answer(no->code, status_body(no->code, no->reason, no->message, no->details));
      body = std::get<json>(std::move(result));
    }
    return json_answer(200, s.store(t.collection, t.ns, body, false));
  }
  if (r.method == "PATCH" && !t.name.empty()) {
    const auto it = bucket.find(key);
    if (it == bucket.end()) return not_found(t);
    const auto ct = r.headers.find("content-type");
    const std::string type = ct == r.headers.end() ? "" : ct->second;
    // A patch that names metadata.uid is a precondition, as on the real server.
    if (body.is_object() && body.contains("metadata") && body["metadata"].is_object() &&
        body["metadata"].contains("uid") &&
        body["metadata"]["uid"] != it->second["metadata"]["uid"])
      return conflict(
          it->second.value("kind", resource),
          "Precondition failed: UID in precondition: " + body["metadata"]["uid"].dump() +
              ", UID in object meta: " + it->second["metadata"]["uid"].dump(),
          t.name, resource);
    json patched = it->second;
    if (type.rfind("application/merge-patch+json", 0) == 0) {
      patched.merge_patch(body);
    } else if (type.rfind("application/strategic-merge-patch+json", 0) == 0) {
      patched = strategic_merge(patched, body);
    } else if (type.rfind("application/json-patch+json", 0) == 0) {
      try {
        patched = patched.patch(body);
      } catch (const json::exception&) {
        return json_answer(422, status_body(422, "Invalid",
                                            "the server rejected our request due to an error in "
                                            "our request"));
      }
    } else {
      return json_answer(415,
                         status_body(415, "UnsupportedMediaType", "415: Unsupported Media Type"));
    }
    if (t.collection == kJobsCollection && !r.status_only) {
      auto result = update_job(patched, it->second);
      if (const Refusal* no = std::get_if<Refusal>(&result))
        return json_answer(no->code, status_body(no->code, no->reason, no->message, no->details));
      patched = std::get<json>(std::move(result));
    }
    return json_answer(200, s.store(t.collection, t.ns, patched, false));
  }
  if (r.method == "DELETE" && !t.name.empty()) {
    const auto it = bucket.find(key);
    if (it == bucket.end()) return not_found(t);
    const json pre =
        body.is_object() ? body.value("preconditions", json::object()) : json::object();
    const std::string kind = it->second.value("kind", resource);
    if (pre.contains("uid") && pre["uid"] != it->second["metadata"]["uid"])
      return conflict(kind,
                      "the UID in the precondition (" + pre["uid"].get<std::string>() +
                          ") does not match the UID in record (" +
                          it->second["metadata"]["uid"].get<std::string>() +
                          "). The object might have been deleted and then recreated",
                      t.name, kind);
    if (pre.contains("resourceVersion") &&
        pre["resourceVersion"] != it->second["metadata"]["resourceVersion"])
      return conflict(kind, "the ResourceVersion in the precondition does not match", t.name, kind);
    // propagationPolicy: the query's, else the DeleteOptions', else the kind's default.
    std::string propagation =
        body.is_object() ? body.value("propagationPolicy", std::string()) : std::string();
    if (const auto p = r.query.find("propagationPolicy"); p != r.query.end())
      propagation = p->second;
    if (propagation.empty())
      propagation = t.collection == kJobsCollection ? "Orphan" : "Background";
    if (propagation != "Background" && propagation != "Foreground" && propagation != "Orphan")
      return json_answer(422, status_body(422, "Invalid",
                                          kind + " \"" + t.name +
                                              "\" is invalid: propagationPolicy: Unsupported "
                                              "value: \"" +
                                              propagation +
                                              "\": supported values: \"Foreground\", "
                                              "\"Background\", \"Orphan\""));
    const std::string uid = it->second["metadata"].value("uid", "");
    // Orphaning is the collector's: it removes the owner's references, then the owner's
    // finalizer. Without one the owner waits, marked, as on a plain API server.
    if (propagation == "Orphan" && s.garbage_collector) s.orphan_dependents(uid);
    if (t.collection == kPodsCollection) {
      json options = body.is_object() ? body : json::object();
      if (const auto g = r.query.find("gracePeriodSeconds"); g != r.query.end())
        options["gracePeriodSeconds"] = std::strtoll(g->second.c_str(), nullptr, 10);
      json answer = s.delete_pod(key, options);
      s.collect_garbage();
      return json_answer(200, answer);
    }
    if (propagation == "Foreground" || (propagation == "Orphan" && !s.garbage_collector)) {
      // The registry marks the object with the policy's finalizer (foregroundDeletion, orphan)
      // and answers 202; the collector finishes the deletion.
      const char* finalizer = propagation == "Foreground" ? kForegroundFinalizer : "orphan";
      json marked = it->second;
      marked["metadata"]["deletionTimestamp"] = format_rfc3339(s.now());
      marked["metadata"]["deletionGracePeriodSeconds"] = 0;
      json fin = marked["metadata"].value("finalizers", json::array());
      if (std::find(fin.begin(), fin.end(), finalizer) == fin.end()) fin.push_back(finalizer);
      marked["metadata"]["finalizers"] = fin;
      json answer = s.store(t.collection, t.ns, marked, false, true);
      s.collect_garbage();
      return json_answer(202, answer);
    }
    json gone = s.erase(t.collection, key);
    s.collect_garbage();
    if (t.collection == kJobsCollection || t.collection == kSecretsCollection) {
      // The registry's finalizeDelete for kinds without ReturnDeletedObject.
      json details = {{"name", t.name}, {"kind", resource}, {"uid", uid}};
      if (t.collection == kJobsCollection) details["group"] = "batch";
      return json_answer(200, status_body(200, "", "", details));
    }
    return json_answer(200, gone);
  }
  return json_answer(405, status_body(405, "MethodNotAllowed", "method not allowed"));
}

static void stream_watch(FakeApiServer::Impl& s, mg_connection* conn, const Target& t,
                         const Request& r) {
  using Event = FakeApiServer::Impl::Event;
  Selector sel;
  if (auto it = r.query.find("fieldSelector"); it != r.query.end())
    sel.fields = Selector::parse(it->second, false);
  if (auto it = r.query.find("labelSelector"); it != r.query.end())
    sel.labels = Selector::parse(it->second, true);
  const auto b = r.query.find("allowWatchBookmarks");
  const bool bookmarks = b != r.query.end() && b->second == "true";
  const auto v = r.query.find("resourceVersion");
  const std::string from = v == r.query.end() ? "" : v->second;

  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
      "Connection: close\r\n\r\n";
  const auto query_value = [&](const char* k) {
    const auto it = r.query.find(k);
    return it == r.query.end() ? std::string() : it->second;
  };
  const std::string watch_key =
      r.path + "?" + query_value("fieldSelector") + "?" + query_value("labelSelector");
  int64_t written = 0;
  const auto write_line = [&](const json& event) {
    const std::string line = event.dump() + "\n";
    const bool ok = mg_send_chunk(conn, line.data(), static_cast<unsigned>(line.size())) > 0;
    written += ok ? 1 : 0;
    return ok;
  };
  const auto in_scope = [&](const Event& e) {
    return e.collection == t.collection && (t.ns.empty() || e.ns == t.ns);
  };

  mg_write(conn, head.data(), head.size());
  std::unique_lock lock(s.mutex);
  ++s.open_watches;
  ++s.watches_started;
  s.cv.notify_all();
  const int64_t expire_seen = s.expire_generation;
  const int64_t drop_seen = s.drop_generation;
  size_t next = s.log.size();
  FakeApiServer::Impl::WatchProgress progress{&next};
  s.watch_progress.push_back(&progress);
  bool alive = true;
  bool dropped = false;
  bool ended = false;
  // Lines are gathered with the mutex held and written without it, so a slow reader never
  // holds up the rest of the server.
  std::vector<json> out;

  if (from.empty() || from == "0") {
    const auto c = s.objects.find(t.collection);
    if (c != s.objects.end()) {
      for (const auto& [key, o] : c->second) {
        if (!t.ns.empty() && o["metadata"].value("namespace", "") != t.ns) continue;
        if (sel.matches(o)) out.push_back({{"type", "ADDED"}, {"object", o}});
      }
    }
  } else {
    const int64_t start = std::stoll(from);
    if (start < s.compacted_rv) {
      out.push_back({{"type", "ERROR"},
                     {"object", status_body(410, "Expired",
                                            "too old resource version: " + from + " (" +
                                                std::to_string(s.compacted_rv) + ")")}});
      ended = true;
    } else {
      next = static_cast<size_t>(
          std::upper_bound(s.log.begin(), s.log.end(), start,
                           [](int64_t rv, const Event& e) { return rv < e.rv; }) -
          s.log.begin());
    }
  }

  while (true) {
    if (!out.empty()) {
      lock.unlock();
      for (const json& line : out) alive = alive && write_line(line);
      out.clear();
      lock.lock();
      s.watch_lines[watch_key] += written;
      written = 0;
    }
    if (!alive || ended || s.shutting_down) break;
    // What happened before a drop or an expiry reaches the client first, as on a real server.
    for (; next < s.log.size(); ++next) {
      const Event& e = s.log[next];
      if (e.type == "BOOKMARK") {
        if (bookmarks) {
          out.push_back({{"type", "BOOKMARK"},
                         {"object",
                          {{"kind", "Bookmark"},
                           {"apiVersion", "v1"},
                           {"metadata", {{"resourceVersion", std::to_string(e.rv)}}}}}});
        }
        continue;
      }
      if (!in_scope(e)) continue;
      const bool now_in = e.type != "DELETED" && sel.matches(e.object);
      const bool was_in = e.type == "MODIFIED" && sel.matches(e.old_object);
      std::string type = e.type;
      if (e.type == "DELETED") {
        if (!sel.matches(e.object)) continue;
      } else if (now_in && !was_in) {
        type = "ADDED";
      } else if (!now_in && was_in) {
        type = "DELETED";
      } else if (!now_in) {
        continue;
      }
      out.push_back({{"type", type}, {"object", e.object}});
    }
    if (!out.empty()) continue;
    if (s.drop_generation != drop_seen) {
      dropped = true;
      break;
    }
    if (s.expire_generation != expire_seen) {
      out.push_back({{"type", "ERROR"},
                     {"object", status_body(410, "Expired",
                                            "too old resource version: " + from + " (" +
                                                std::to_string(s.rv) + ")")}});
      ended = true;
      continue;
    }
    progress.waiting = true;
    s.progress_cv.notify_all();
    s.cv.wait(lock);
    progress.waiting = false;
  }
  s.watch_progress.remove(&progress);
  s.progress_cv.notify_all();
  --s.open_watches;
  s.cv.notify_all();
  lock.unlock();
  if (!dropped) mg_send_chunk(conn, "", 0);  // the end of the chunked body
}

}  // namespace gantry::kube::testing
