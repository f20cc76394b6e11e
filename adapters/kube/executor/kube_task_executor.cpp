#include "adapters/kube/executor/kube_task_executor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <stdexcept>

#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/kube_log.hpp"
#include "adapters/kube/model/kube_pod.hpp"

namespace gantry::kube {

namespace {

using nlohmann::json;

std::string collection(const std::string& ns, const char* resource) {
  return "/api/v1/namespaces/" + ns + "/" + resource;
}

std::string label_of(const json& object, std::string_view key) {
  const json& labels = object.value("metadata", json::object()).value("labels", json::object());
  const auto it = labels.find(std::string(key));
  return it != labels.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string annotation_of(const json& object, std::string_view key) {
  const json& a = object.value("metadata", json::object()).value("annotations", json::object());
  const auto it = a.find(std::string(key));
  return it != a.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string uid_of(const json& object) {
  return object.value("metadata", json::object()).value("uid", "");
}

// "configmap", "service", "pod": an object's kind as kubectl names its resource, for messages.
std::string kind_word(const json& body) {
  std::string kind = body.value("kind", "object");
  std::transform(kind.begin(), kind.end(), kind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return kind;
}

std::optional<int64_t> to_int(const std::string& text) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

KubeTaskExecutor::KubeTaskExecutor(EventLoop& loop, KubeClient& client, KubeExecutorOptions options)
    : loop_(loop), client_(client), options_(std::move(options)) {
  InformerOptions io;
  io.path = options_.plan.namespace_name.empty() ? "/api/v1/pods"
                                                 : collection(options_.plan.namespace_name, "pods");
  io.label_selector = std::string(kManagedByLabel) + "=" + std::string(kManagedByGantry);
  io.sleeper = options_.informer_sleeper;
  io.seed = options_.seed;
  io.dispatch = [this](std::function<void()> fn) { post(std::move(fn)); };
  informer_ = std::make_unique<Informer>(client_, io);
  informer_->add_handler([this](const InformerEvent& e) { on_pod_event(e); });
  queue_ = std::make_unique<ApiWorkers>(static_cast<size_t>(options_.workers));
  informer_->start();
}

KubeTaskExecutor::~KubeTaskExecutor() {
  informer_->stop();
  queue_->stop();
  *alive_ = false;
}

void KubeTaskExecutor::post(std::function<void()> fn) {
  auto guarded = [alive = alive_, fn = std::move(fn)] {
    if (*alive) fn();
  };
  if (options_.post) {
    options_.post(std::move(guarded));
  } else {
    loop_.post(std::move(guarded));
  }
}

bool KubeTaskExecutor::wait_for_sync() { return informer_->wait_for_sync(); }

std::string KubeTaskExecutor::base_name(AttemptId id) const {
  const auto it = attempts_.find(id);
  return it == attempts_.end() ? std::string() : it->second.base;
}

std::optional<PodPhase> KubeTaskExecutor::pod_phase(AttemptId id, const std::string& pod) const {
  const auto it = attempts_.find(id);
  if (it == attempts_.end()) return std::nullopt;
  for (const NamedPod& p : it->second.pods)
    if (p.name == pod) return p.progress.phase;
  return std::nullopt;
}

KubeExecutorStats KubeTaskExecutor::stats() const {
  return {created_.load(), already_existed_.load(), deleted_.load(), api_failures_.load()};
}

std::string KubeTaskExecutor::last_error() const {
  std::lock_guard lock(error_mutex_);
  return last_error_;
}

void KubeTaskExecutor::failed_call(const std::string& what) {
  ++api_failures_;
  kube_log().warn("{}", what);
  std::lock_guard lock(error_mutex_);
  last_error_ = what;
}

// ---- start ----

void KubeTaskExecutor::start(const AttemptRequest& request, AttemptListener& listener) {
  AttemptPlan plan = plan_attempt(request, options_.plan);
  const AttemptId id = request.id;
  Attempt a;
  a.listener = &listener;
  a.namespace_name = plan.namespace_name;
  a.base = plan.base;
  a.has_service = !plan.service.is_null();
  a.requests = request.requests;
  for (const PlannedPod& p : plan.pods) a.pods.push_back({p.name, {}});
  a.shared = std::make_shared<Shared>();
  if (!plan.refused.empty()) {
    const std::string reason = plan.refused;
    attempts_[id] = std::move(a);
    // Reported on a later turn of the loop (never from start()), unless killed first.
    post([this, id, reason] {
      if (attempts_.count(id)) end(id, AttemptResult{AttemptOutcome::kError, {}, reason});
    });
    return;
  }
  a.shared->creating = true;
  auto shared = a.shared;
  attempts_[id] = std::move(a);
  queue_->submit([this, plan = std::move(plan), shared] { create_objects(plan, shared); });
}

void KubeTaskExecutor::create_objects(const AttemptPlan& plan,
                                      const std::shared_ptr<Shared>& shared) {
  const auto cancelled = [&] {
    std::lock_guard lock(shared->mutex);
    return shared->cancelled;
  };
  // Creates `body` in `path`; the uid of the object there (ours, maybe from before a restart).
  // A failure is thrown as one message naming the object, "creating pod ns/name: ", then what
  // the server said (or the transport's error): the attempt's reason.
  const auto create = [&](const std::string& path, const json& body) -> std::string {
    std::string refusal;
    try {
      const WriteResult r = client_.create(path, body);
      if (r.outcome == WriteOutcome::kOk) {
        ++created_;
        return uid_of(r.object);
      }
      // 409 AlreadyExists: a deterministic name, so it is this attempt's — check.
      const json there = client_.get(path + "/" + name_of(body));
      const std::string owner = label_of(there, kAttemptIdLabel);
      if (owner == std::to_string(plan.id)) {
        ++already_existed_;
        return uid_of(there);
      }
      refusal = fmt::format("409 AlreadyExists: it is {}, not attempt {}'s",
                            owner.empty() ? "not Gantry's" : "attempt " + owner + "'s", plan.id);
    } catch (const std::exception& e) {
      refusal = failure_words(e);
    }
    throw std::runtime_error(fmt::format("creating {} {}/{}: {}", kind_word(body),
                                         plan.namespace_name, name_of(body), refusal));
  };
  // In order, each after a look at `cancelled` (a kill or the attempt's end stops it).
  const auto create_all = [&] {
    const std::string& ns = plan.namespace_name;
    if (cancelled()) return;
    const std::string owner_uid = create(collection(ns, "configmaps"), plan.owner);
    {
      std::lock_guard lock(shared->mutex);
      shared->owner_uid = owner_uid;
    }
    if (!plan.service.is_null()) {
      if (cancelled()) return;
      json service = plan.service;
      set_owner(service, plan.base, owner_uid);
      const std::string uid = create(collection(ns, "services"), service);
      std::lock_guard lock(shared->mutex);
      shared->service_uid = uid;
    }
    for (const PlannedPod& p : plan.pods) {
      if (cancelled()) return;
      json pod = p.body;
      set_owner(pod, plan.base, owner_uid);
      const std::string uid = create(collection(ns, "pods"), pod);
      std::lock_guard lock(shared->mutex);
      shared->pod_uids[p.name] = uid;
    }
  };
  std::string failure;
  try {
    create_all();
  } catch (const std::exception& e) {
    failure = e.what();
  }
  {
    std::lock_guard lock(shared->mutex);
    shared->creating = false;
  }
  shared->cv.notify_all();
  if (failure.empty()) return;
  failed_call("attempt " + std::to_string(plan.id) + ": " + failure);
  const AttemptId id = plan.id;
  post([this, id, shared, failure] {
    const auto it = attempts_.find(id);
    if (it == attempts_.end() || it->second.shared != shared) return;  // killed meanwhile
    end(id, AttemptResult{AttemptOutcome::kError, {}, failure}, true);
  });
}

// ---- what the pods say ----

void KubeTaskExecutor::on_pod_event(const InformerEvent& e) {
  const std::optional<int64_t> id = to_int(label_of(e.object, kAttemptIdLabel));
  if (!id) return;
  const auto it = attempts_.find(static_cast<AttemptId>(*id));
  if (it == attempts_.end()) return;
  Attempt& a = it->second;
  const std::string name = name_of(e.object);
  const std::string ns = namespace_of(e.object);
  if (ns != a.namespace_name) return;
  const auto pod =
      std::find_if(a.pods.begin(), a.pods.end(), [&](const NamedPod& p) { return p.name == name; });
  if (pod == a.pods.end()) return;
  if (e.type == InformerEventType::kDeleted) {
    // Only the incarnation we know (an unknown uid: the first we hear of it).
    if (pod->progress.uid.empty() || pod->progress.uid == uid_of(e.object))
      mark_deleted(pod->progress);
  } else {
    advance(pod->progress, read_pod(e.object));
  }
  evaluate(it->first);
}

void KubeTaskExecutor::evaluate(AttemptId id) {
  auto it = attempts_.find(id);
  if (it == attempts_.end()) return;
  const AttemptVerdict v = judge(it->second.pods, loop_.now());
  if (v.running_since && !it->second.reported_running) {
    it->second.reported_running = true;
    it->second.listener->attempt_running(id, *v.running_since);
    it = attempts_.find(id);  // the listener may have killed it
    if (it == attempts_.end()) return;
  }
  if (v.end) end(id, *v.end);
}

void KubeTaskExecutor::end(AttemptId id, AttemptResult result, bool delete_all) {
  const auto it = attempts_.find(id);
  Attempt a = std::move(it->second);
  attempts_.erase(it);
  result.used = a.requests;
  {
    std::lock_guard lock(a.shared->mutex);
    a.shared->cancelled = true;
  }
  if (delete_all && !a.pods.empty()) {
    std::vector<std::string> pods;
    for (const NamedPod& p : a.pods) pods.push_back(p.name);
    queue_->submit([this, ns = a.namespace_name, base = a.base, svc = a.has_service,
                    pods = std::move(pods),
                    shared = a.shared] { delete_objects(ns, base, svc, pods, true, shared); });
  } else if (result.outcome != AttemptOutcome::kSucceeded) {
    // The rest of the gang must not hold its GPUs: delete the pods that have not ended.
    std::vector<std::string> unfinished;
    for (const NamedPod& p : a.pods) {
      const PodPhase ph = p.progress.phase;
      if (ph != PodPhase::kSucceeded && ph != PodPhase::kFailed && ph != PodPhase::kGone)
        unfinished.push_back(p.name);
    }
    if (!unfinished.empty())
      queue_->submit([this, ns = a.namespace_name, base = a.base, svc = a.has_service,
                      unfinished = std::move(unfinished), shared = a.shared] {
        delete_objects(ns, base, svc, unfinished, false, shared);
      });
  }
  if (options_.keep_finished && !delete_all && !a.pods.empty()) {
    std::vector<std::string> pods;
    for (const NamedPod& p : a.pods) pods.push_back(p.name);
    loop_.schedule_after(
        *options_.keep_finished,
        [this, alive = alive_, ns = a.namespace_name, base = a.base, svc = a.has_service,
         pods = std::move(pods), shared = a.shared]() mutable {
          if (!*alive) return;  // the executor is gone
          queue_->submit([this, ns, base, svc, pods = std::move(pods), shared] {
            delete_objects(ns, base, svc, pods, true, shared);
          });
        });
  }
  a.listener->attempt_finished(id, result);
}

// ---- kill ----

KillAck KubeTaskExecutor::kill(AttemptId id) {
  const auto it = attempts_.find(id);
  if (it == attempts_.end()) return KillAck::kUnknown;
  Attempt a = std::move(it->second);
  attempts_.erase(it);
  {
    std::lock_guard lock(a.shared->mutex);
    a.shared->cancelled = true;
  }
  std::vector<std::string> pods;
  for (const NamedPod& p : a.pods) pods.push_back(p.name);
  if (!a.pods.empty())  // a refused attempt has no objects
    queue_->submit([this, ns = a.namespace_name, base = a.base, svc = a.has_service,
                    pods = std::move(pods),
                    shared = a.shared] { delete_objects(ns, base, svc, pods, true, shared); });
  return KillAck::kKilled;
}

void KubeTaskExecutor::delete_objects(const std::string& ns, const std::string& base,
                                      bool has_service, std::vector<std::string> pods,
                                      bool everything, const std::shared_ptr<Shared>& shared) {
  std::map<std::string, std::string> pod_uids;
  std::string owner_uid;
  std::string service_uid;
  {
    // Whatever a create in flight makes must be deleted too: wait for it (it stops at the
    // next object, having seen `cancelled`).
    std::unique_lock lock(shared->mutex);
    shared->cv.wait(lock, [&] { return !shared->creating; });
    pod_uids = shared->pod_uids;
    owner_uid = shared->owner_uid;
    service_uid = shared->service_uid;
  }
  // `resource` is the collection's name ("pods"), `kind` the word for messages ("pod").
  const auto remove = [&](const char* resource, const char* kind, const std::string& name,
                          const std::string& uid, bool background) {
    DeleteOptions o;
    o.uid = uid;
    if (background) o.propagation_policy = "Background";
    try {
      const WriteResult r = client_.remove(collection(ns, resource) + "/" + name, o);
      if (r.outcome == WriteOutcome::kOk) ++deleted_;
      // kNotFound: gone already; kConflict: another incarnation, not ours to delete.
    } catch (const std::exception& e) {
      // The attempt was reported already (its end, a kill): the log is where this shows.
      failed_call(fmt::format("deleting {} {}/{}: {}", kind, ns, name, failure_words(e)));
    }
  };
  for (const std::string& pod : pods) {
    std::string uid;
    if (const auto it = pod_uids.find(pod); it != pod_uids.end()) {
      uid = it->second;
    } else if (const auto cached = informer_->cache().get(ns, pod)) {
      uid = uid_of(*cached);
    }
    remove("pods", "pod", pod, uid, false);
  }
  if (!everything) return;
  if (has_service) remove("services", "service", base, service_uid, false);
  remove("configmaps", "configmap", base, owner_uid, true);
}

// ---- adopt ----

std::vector<json> KubeTaskExecutor::cached_pods(AttemptId id) const {
  std::vector<json> out;
  const std::string want = std::to_string(id);
  for (json& pod : informer_->cache().list())
    if (label_of(pod, kAttemptIdLabel) == want) out.push_back(std::move(pod));
  std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return to_int(annotation_of(a, kGangIndexAnnotation)).value_or(0) <
           to_int(annotation_of(b, kGangIndexAnnotation)).value_or(0);
  });
  return out;
}

bool KubeTaskExecutor::adopt(AttemptId id, AttemptListener& listener) {
  if (const auto it = attempts_.find(id); it != attempts_.end()) {
    // Still held by this process: report it afresh to the new listener.
    it->second.listener = &listener;
    it->second.reported_running = false;
    post([this, id] { evaluate(id); });
    return true;
  }
  // The cache is the only memory of an earlier process: without its first list every
  // attempt would look lost and run twice. wait_for_sync() before recovery makes this free.
  if (!informer_->has_synced() && !informer_->wait_for_sync()) return false;
  const std::vector<json> found = cached_pods(id);
  if (found.empty()) return false;
  Attempt a;
  a.listener = &listener;
  a.namespace_name = namespace_of(found[0]);
  a.base = label_of(found[0], kGangLabel);
  a.has_service = !label_of(found[0], kReplicaTypeLabel).empty();
  a.shared = std::make_shared<Shared>();
  const int64_t gang_size = to_int(annotation_of(found[0], kGangSizeAnnotation)).value_or(0);
  for (const json& pod : found) {
    a.pods.push_back(NamedPod{name_of(pod), read_pod(pod)});
    a.shared->pod_uids[name_of(pod)] = uid_of(pod);
  }
  try {
    a.requests = parse_pod(found[0]).request;
  } catch (const std::exception&) {
    // `used` stays empty: autosize learns nothing from this attempt.
  }
  if (a.base.empty() || static_cast<int64_t>(found.size()) != gang_size) {
    // Its creation was cut short (or pods were deleted while no one watched): it cannot run
    // as a gang. Delete what is there; the scheduler starts the task again.
    std::vector<std::string> pods;
    for (const NamedPod& p : a.pods) pods.push_back(p.name);
    queue_->submit([this, ns = a.namespace_name, base = a.base, svc = a.has_service,
                    pods = std::move(pods), shared = a.shared] {
      delete_objects(ns, base, svc && !base.empty(), pods, !base.empty(), shared);
    });
    return false;
  }
  attempts_[id] = std::move(a);
  post([this, id] { evaluate(id); });
  return true;
}

// ---- logs ----

std::vector<PodLog> KubeTaskExecutor::read_logs(AttemptId id, const LogOptions& options) const {
  std::vector<PodLog> out;
  for (const json& pod : cached_pods(id)) {
    PodLog log;
    log.pod = name_of(pod);
    log.role = label_of(pod, kReplicaTypeLabel);
    log.gang_index = static_cast<int>(to_int(annotation_of(pod, kGangIndexAnnotation)).value_or(0));
    const std::string ns = namespace_of(pod);
    std::string path = collection(ns, "pods") + "/" + log.pod + "/log";
    std::string query;
    if (options.tail_lines) query += "&tailLines=" + std::to_string(*options.tail_lines);
    if (options.limit_bytes) query += "&limitBytes=" + std::to_string(*options.limit_bytes);
    if (!query.empty()) path += "?" + query.substr(1);
    try {
      const KubeResponse r = client_.request("GET", path);
      if (r.status == 200) {
        log.text = r.body;
      } else {
        const KubeStatus s = parse_status(r.status, r.body);
        log.error = fmt::format("{} {}: {}", s.code, s.reason, s.message);
      }
    } catch (const std::exception& e) {
      log.error = e.what();
    }
    out.push_back(std::move(log));
  }
  return out;
}

void KubeTaskExecutor::fetch_logs(AttemptId id, LogOptions options,
                                  std::function<void(std::vector<PodLog>)> done) {
  queue_->submit([this, id, options, done = std::move(done)] {
    std::vector<PodLog> logs = read_logs(id, options);
    post([done, logs = std::move(logs)] { done(logs); });
  });
}

}  // namespace gantry::kube
