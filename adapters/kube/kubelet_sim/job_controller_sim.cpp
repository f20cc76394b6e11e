#include "adapters/kube/kubelet_sim/job_controller_sim.hpp"

#include "adapters/kube/kubelet_sim/indexed_job.hpp"

namespace gantry::kube {

namespace {

using nlohmann::json;

std::string uid_of(const json& o) { return o.value("metadata", json::object()).value("uid", ""); }

// The uid of the Job that controls `pod` (its controller ownerReference), or "".
std::string controlling_job(const json& pod) {
  const json refs = pod.value("metadata", json::object()).value("ownerReferences", json::array());
  if (!refs.is_array()) return "";
  for (const json& r : refs)
    if (r.value("kind", "") == "Job" && r.value("controller", false)) return r.value("uid", "");
  return "";
}

std::string phase_of(const json& pod) {
  return pod.value("status", json::object()).value("phase", "");
}

bool ready(const json& pod) {
  for (const json& c : pod.value("status", json::object()).value("conditions", json::array()))
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  return false;
}

std::optional<int64_t> int_field(const json& spec, const char* key) {
  if (!spec.contains(key) || !spec[key].is_number_integer()) return std::nullopt;
  return spec[key].get<int64_t>();
}

std::vector<int64_t> sorted(const std::set<int64_t>& s) { return {s.begin(), s.end()}; }

}  // namespace

JobControllerSim::JobControllerSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                                   JobControllerSimOptions options)
    : client_(client), workers_(workers), loop_(loop), options_(std::move(options)) {}

JobControllerSim::~JobControllerSim() { stop(); }

void JobControllerSim::start() {
  const auto on_loop = [this](std::function<void()> fn) { loop_.post(std::move(fn)); };
  InformerOptions jobs;
  jobs.path = "/apis/batch/v1/jobs";
  jobs.dispatch = on_loop;
  jobs_informer_ = std::make_unique<Informer>(client_, jobs);
  jobs_informer_->add_handler([this](const InformerEvent& e) {
    if (!stopped_) on_job(e.object, e.type == InformerEventType::kDeleted);
  });
  InformerOptions pods;
  pods.path = "/api/v1/pods";
  pods.dispatch = on_loop;
  pods_informer_ = std::make_unique<Informer>(client_, pods);
  pods_informer_->add_handler([this](const InformerEvent& e) {
    if (!stopped_) on_pod(e.object, e.type == InformerEventType::kDeleted);
  });
  // Pods first: a Job's first sync then sees the pods an earlier run left.
  pods_informer_->start();
  pods_informer_->wait_for_sync();
  jobs_informer_->start();
}

void JobControllerSim::stop() {
  stopped_ = true;
  if (jobs_informer_) jobs_informer_->stop();
  if (pods_informer_) pods_informer_->stop();
}

std::string JobControllerSim::now_text() const {
  return format_rfc3339(options_.server_now ? options_.server_now() : wall_clock_.now());
}

void JobControllerSim::on_job(const json& job, bool deleted) {
  const std::string uid = uid_of(job);
  if (deleted) {
    jobs_.erase(uid);
    tracked_.erase(uid);
    return;
  }
  jobs_[uid] = job;
  sync(uid);
}

void JobControllerSim::on_pod(const json& pod, bool deleted) {
  const std::string job_uid = controlling_job(pod);
  if (job_uid.empty()) return;
  const std::string name = pod["metadata"].value("name", "");
  auto& pods = pods_[job_uid];
  const auto job = jobs_.find(job_uid);
  const auto t = tracked_.find(job_uid);
  if (deleted) {
    // A pod gone before it ended is a failure of its index, as the real controller counts it
    // through its finalizer.
    if (job != jobs_.end() && t != tracked_.end()) count_end(t->second, job->second, pod, true);
    pods.erase(name);
  } else {
    if (!pods.count(name) && t != tracked_.end()) {
      const std::optional<int64_t> ix = completion_index(pod);
      if (ix && t->second.creating[*ix] > 0) --t->second.creating[*ix];  // the create is seen
    }
    pods[name] = pod;
  }
  sync(job_uid);
}

void JobControllerSim::count_end(Tracked& t, const json& job, const json& pod, bool gone) {
  const std::string uid = uid_of(pod);
  const std::string phase = phase_of(pod);
  if (t.counted.count(uid) || (!gone && phase != "Succeeded" && phase != "Failed")) return;
  const std::optional<int64_t> ix = completion_index(pod);
  if (!ix) return;
  t.counted.insert(uid);
  if (phase == "Succeeded") {
    ++t.succeeded;
    t.completed.insert(*ix);
    return;
  }
  ++t.failed;
  const int64_t failures = ++t.failures[*ix];
  const std::optional<int64_t> per_index = int_field(job["spec"], "backoffLimitPerIndex");
  if (per_index && failures > *per_index && !t.completed.count(*ix)) t.failed_indexes.insert(*ix);
}

void JobControllerSim::sync(const std::string& job_uid) {
  const auto jit = jobs_.find(job_uid);
  if (jit == jobs_.end()) return;
  const json& job = jit->second;
  const json& spec = job["spec"];
  if (spec.value("completionMode", "") != "Indexed" || spec.value("suspend", false)) return;
  Tracked& t = tracked_[job_uid];
  if (t.finished) return;
  for (const json& c : job.value("status", json::object()).value("conditions", json::array()))
    if ((c.value("type", "") == "Complete" || c.value("type", "") == "Failed") &&
        c.value("status", "") == "True") {
      t.finished = true;  // finished before this stand-in started
      return;
    }
  const int64_t completions = int_field(spec, "completions").value_or(1);
  const int64_t parallelism = int_field(spec, "parallelism").value_or(1);
  const std::optional<int64_t> per_index = int_field(spec, "backoffLimitPerIndex");
  const std::optional<int64_t> max_failed = int_field(spec, "maxFailedIndexes");
  const int64_t backoff_limit = int_field(spec, "backoffLimit").value_or(6);
  if (t.start_time.empty())
    t.start_time = job.value("status", json::object()).value("startTime", now_text());

  int64_t active = 0;
  int64_t ready_count = 0;
  int64_t terminating = 0;
  std::set<int64_t> running;
  std::vector<json> active_pods;
  for (const auto& [name, pod] : pods_[job_uid]) {
    const std::optional<int64_t> ix = completion_index(pod);
    if (!ix || *ix >= completions) continue;
    const std::string phase = phase_of(pod);
    if (phase == "Succeeded" || phase == "Failed") {
      count_end(t, job, pod, false);
      continue;
    }
    if (pod["metadata"].contains("deletionTimestamp")) {
      ++terminating;
      continue;
    }
    ++active;
    running.insert(*ix);
    active_pods.push_back(pod);
    if (ready(pod)) ++ready_count;
  }

  std::string fail_reason;
  std::string fail_message;
  const bool all_done =
      static_cast<int64_t>(t.completed.size() + t.failed_indexes.size()) >= completions;
  if (per_index) {
    if (max_failed && static_cast<int64_t>(t.failed_indexes.size()) > *max_failed) {
      fail_reason = "MaxFailedIndexesExceeded";
      fail_message = "Job has exceeded the specified maximal number of failed indexes";
    } else if (all_done && !t.failed_indexes.empty()) {
      fail_reason = "FailedIndexes";
      fail_message = "Job has failed indexes";
    }
  } else if (t.failed > backoff_limit) {
    fail_reason = "BackoffLimitExceeded";
    fail_message = "Job has reached the specified backoff limit";
  }
  const bool succeeded = static_cast<int64_t>(t.completed.size()) >= completions;

  json conditions = t.written.value("conditions", json::array());
  const auto add_condition = [&](const char* type, const std::string& reason,
                                 const std::string& message) {
    for (const json& c : conditions)
      if (c.value("type", "") == type) return;
    const std::string at = now_text();
    conditions.push_back({{"type", type},
                          {"status", "True"},
                          {"lastProbeTime", at},
                          {"lastTransitionTime", at},
                          {"reason", reason},
                          {"message", message}});
  };
  std::string completion_time;
  if (!fail_reason.empty()) {
    add_condition("FailureTarget", fail_reason, fail_message);
    // A failing Job's pods are deleted; the Failed condition waits for them to go.
    for (const json& pod : active_pods) {
      if (!t.deleting.insert(uid_of(pod)).second) continue;
      const std::string path = "/api/v1/namespaces/" + pod["metadata"].value("namespace", "") +
                               "/pods/" + pod["metadata"].value("name", "");
      DeleteOptions o;
      o.uid = uid_of(pod);
      ++stats_.pods_deleted;
      workers_.submit([this, path, o] {
        try {
          client_.remove(path, o);
        } catch (const std::exception&) {
          loop_.post([this] { ++stats_.write_errors; });
        }
      });
    }
    if (active_pods.empty() && terminating == 0) {
      add_condition("Failed", fail_reason, fail_message);
      t.finished = true;
    }
  } else if (succeeded) {
    add_condition("SuccessCriteriaMet", "CompletionsReached",
                  "Reached expected number of succeeded pods");
    if (active == 0 && terminating == 0) {
      add_condition("Complete", "CompletionsReached", "Reached expected number of succeeded pods");
      completion_time = now_text();
      t.finished = true;
    }
  } else {
    // New pods for the lowest pending indexes, up to parallelism (creates in flight count).
    int64_t in_flight = 0;
    for (const auto& [ix, n] : t.creating) in_flight += n;
    int64_t slots = parallelism - active - in_flight;
    const std::string collection =
        "/api/v1/namespaces/" + job["metadata"].value("namespace", "") + "/pods";
    for (int64_t ix = 0; ix < completions && slots > 0; ++ix) {
      if (t.completed.count(ix) || t.failed_indexes.count(ix) || running.count(ix) ||
          t.creating[ix] > 0)
        continue;
      const json pod = indexed_job_pod(job, ix, t.failures[ix]);
      ++t.creating[ix];
      --slots;
      ++stats_.pods_created;
      const std::string job_path = std::string("/apis/batch/v1/namespaces/") +
                                   job["metadata"].value("namespace", "") + "/jobs/" +
                                   job["metadata"].value("name", "");
      workers_.submit([this, collection, pod, job_uid, ix, job_path] {
        try {
          // The Job as the server has it now: none for a Job deleted (in the background) whose
          // pods this stand-in has not yet heard of, where the real controller's informer
          // would have told it first. Its pods are not replaced then.
          const json now = client_.get(job_path);
          if (uid_of(now) == job_uid && !now["metadata"].contains("deletionTimestamp")) {
            const WriteResult r = client_.create(collection, pod);
            if (r.outcome == WriteOutcome::kOk) return;
          }
        } catch (const std::exception&) {
        }
        loop_.post([this, job_uid, ix] {
          ++stats_.write_errors;
          const auto found = tracked_.find(job_uid);
          if (found != tracked_.end() && found->second.creating[ix] > 0)
            --found->second.creating[ix];
        });
      });
    }
  }

  json status = {{"startTime", t.start_time},
                 {"ready", ready_count},
                 {"terminating", terminating},
                 {"uncountedTerminatedPods", json::object()}};
  // `omitempty` counts of the Go struct.
  if (active > 0 && !t.finished) status["active"] = active;
  if (t.succeeded > 0) status["succeeded"] = t.succeeded;
  if (t.failed > 0) status["failed"] = t.failed;
  const std::string completed = index_intervals(sorted(t.completed));
  if (!completed.empty()) status["completedIndexes"] = completed;
  if (per_index) status["failedIndexes"] = index_intervals(sorted(t.failed_indexes));
  if (!conditions.empty()) status["conditions"] = conditions;
  if (!completion_time.empty()) status["completionTime"] = completion_time;
  write_status(job, t, std::move(status));
}

void JobControllerSim::write_status(const json& job, Tracked& t, json status) {
  if (status == t.written) return;
  t.written = std::move(status);
  t.status_path = "/apis/batch/v1/namespaces/" + job["metadata"].value("namespace", "") + "/jobs/" +
                  job["metadata"].value("name", "") + "/status";
  flush_status(uid_of(job));
}

void JobControllerSim::flush_status(const std::string& job_uid) {
  const auto it = tracked_.find(job_uid);
  if (it == tracked_.end()) return;
  Tracked& t = it->second;
  if (t.in_flight || t.written == t.sent) return;
  // A merge patch of the whole status: what is no longer there is written null.
  json patch = t.written;
  for (const auto& [k, v] : t.sent.items())
    if (!t.written.contains(k)) patch[k] = nullptr;
  t.sent = t.written;
  t.in_flight = true;
  ++stats_.status_writes;
  const json body = {{"metadata", {{"uid", job_uid}}}, {"status", patch}};
  workers_.submit([this, path = t.status_path, body, job_uid] {
    try {
      client_.patch(path, body, PatchType::kMerge);
    } catch (const std::exception&) {
      loop_.post([this] { ++stats_.write_errors; });
    }
    loop_.post([this, job_uid] {
      const auto found = tracked_.find(job_uid);
      if (found == tracked_.end()) return;
      found->second.in_flight = false;
      flush_status(job_uid);
    });
  });
}

}  // namespace gantry::kube
