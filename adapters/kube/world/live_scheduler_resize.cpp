// LiveScheduler (live_scheduler.hpp): resizes of elastic gangs: pods added and bound, hosts
// rewritten, leavers removed, or the resize failed and undone.

#include <algorithm>

#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/world/live_pod_facts.hpp"
#include "adapters/kube/world/live_scheduler.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

Status LiveScheduler::resize(JobId job, int replicas, std::string reason) {
  Result<std::optional<ResizeAction>> r =
      scheduler_.resize(live_.cluster(), job, replicas, loop_.now(), std::move(reason));
  if (!r) return Status::error(r.error());
  if (r.value()) start_resize(*r.value());
  return Status::ok();
}

std::optional<JobId> LiveScheduler::workload_of(const std::string& gang) const {
  for (auto it = submitted_.rbegin(); it != submitted_.rend(); ++it)
    if (it->second.gang == gang) return it->first;
  return std::nullopt;
}

LiveScheduler::Submitted* LiveScheduler::resizing(JobId job, uint64_t generation) {
  const auto it = submitted_.find(job);
  if (it == submitted_.end() || !it->second.resize || it->second.resize->generation != generation)
    return nullptr;
  return &it->second;
}

void LiveScheduler::start_resize(const ResizeAction& action) {
  const auto it = submitted_.find(action.job);
  if (it == submitted_.end() || it->second.phase != Phase::kPlaced || it->second.resize) {
    // The scheduler resizes only running workloads, which this front knows as placed.
    Observation o;
    o.kind = Observation::Kind::kResizeFailed;
    o.at = loop_.now();
    o.job = action.job;
    o.reason = "the workload is not running here";
    if (log_ != nullptr) log_->observation(o);
    (void)scheduler_.observe(live_.cluster(), o);
    return;
  }
  Submitted& s = it->second;
  if (log_ != nullptr) log_->resize(loop_.now(), action);
  Resize r;
  r.action = action;
  r.generation = ++resize_generation_;
  r.first_added = s.pods.size();
  for (size_t i = 0; i < s.pods.size(); ++i)
    if (std::count(action.removed.begin(), action.removed.end(), s.ids[i]) != 0)
      r.removed.push_back(i);
  const std::string job = job_name(s.gang);
  const std::string ns = s.pods.front().namespace_name;
  if (s.bound.size() != s.pods.size()) s.bound.assign(s.pods.size(), true);
  for (size_t k = 0; k < action.added.size(); ++k) {
    const int32_t id = action.first_added + static_cast<int32_t>(k);
    // Worker i is pod F + i, unless the gang's names already went past i.
    const int32_t index = std::max(id - s.fixed, s.next_worker);
    s.next_worker = index + 1;
    KubePod pod;
    pod.namespace_name = ns;
    pod.name = job + "-worker-" + std::to_string(index);
    pod.request = action.requests[k];
    s.pods.push_back(ref_of(pod));
    s.last.push_back(pod);
    s.ids.push_back(id);
    s.worker.push_back(index);
    s.running.push_back(false);
    s.succeeded.push_back(false);
    s.bound.push_back(false);
    placed_pod_[s.pods.back().key()] = {s.job, static_cast<int32_t>(s.pods.size() - 1)};
  }
  s.resize = std::move(r);
  Resize& rs = *s.resize;
  if (action.added.empty()) {
    write_hosts(s);
    return;
  }
  const auto tmpl = templates_.find(s.gang);
  if (writer_ == nullptr || tmpl == templates_.end()) {
    fail_resize(s, writer_ == nullptr ? "no pod writer" : "no Worker pod to copy");
    return;
  }
  const JobId id = s.job;
  const uint64_t gen = rs.generation;
  rs.timer = loop_.schedule_after(config_.resize_timeout, [this, id, gen] {
    Submitted* t = resizing(id, gen);
    if (t == nullptr || t->resize->stage != Resize::Stage::kAdding) return;
    t->resize->timer.reset();
    fail_resize(*t, "the new pods did not all run within " +
                        std::to_string(config_.resize_timeout.micros() / 1'000'000) + "s");
  });
  const std::string size = std::to_string(s.fixed + action.replicas);
  for (size_t i = rs.first_added; i < s.pods.size(); ++i) {
    const nlohmann::json body =
        resize_pod_body(tmpl->second, s.pods[i].name,
                        {{std::string(kGangIndexAnnotation), std::to_string(s.fixed + s.worker[i])},
                         {std::string(kGangSizeAnnotation), size}});
    writer_->create_pod(ns, body, [this, id, gen, i](Result<std::string> uid) {
      resize_created(id, gen, i, std::move(uid));
    });
  }
}

void LiveScheduler::resize_created(JobId job, uint64_t generation, size_t i,
                                   Result<std::string> uid) {
  Submitted* s = resizing(job, generation);
  if (s == nullptr) {
    // The resize ended meanwhile (failed, or its gang stopped): the pod is not wanted.
    if (uid) {
      const auto it = submitted_.find(job);
      if (it != submitted_.end() && i < it->second.pods.size())
        binder_.evict(
            PodRef{it->second.pods[i].namespace_name, it->second.pods[i].name, uid.value()},
            "its resize ended");
    }
    return;
  }
  if (!uid) {
    fail_resize(*s, "creating pod " + s->pods[i].key() + ": " + uid.error());
    return;
  }
  s->pods[i].uid = uid.value();
  const PodPlacement& at = s->resize->action.added[i - s->resize->first_added];
  PodBinding b;
  b.pod = s->pods[i];
  b.node = live_.cluster().node_info(at.node).name;
  b.gpu_index = gpus_of(at.gpu_mask);
  binder_.bind(b, [this, job, generation, i](Status result) {
    resize_bound(job, generation, i, std::move(result));
  });
}

void LiveScheduler::resize_bound(JobId job, uint64_t generation, size_t i, Status result) {
  Submitted* s = resizing(job, generation);
  if (s == nullptr) return;  // its deletion was asked for with the resize's end
  if (!result) {
    fail_resize(*s, "binding pod " + s->pods[i].key() + ": " + result.message());
    return;
  }
  s->bound[i] = true;
  resize_progress(*s);
}

void LiveScheduler::resize_pod_changed(Submitted& s, size_t i, const KubePod& pod, bool deleted) {
  Resize& r = *s.resize;
  if (!deleted) s.last[i] = pod;
  if (i < r.first_added) {
    // A pod that leaves: gone once deleted (no longer in placed_pod_) or ended.
    if (deleted) {
      const auto placed = placed_pod_.find(s.pods[i].key());
      if (placed != placed_pod_.end() && placed->second.first == s.job) placed_pod_.erase(placed);
    }
    if (r.stage == Resize::Stage::kRemoving) remove_leaving(s);
    return;
  }
  if (deleted || pod.phase == "Failed" || pod.phase == "Succeeded") {
    fail_resize(s, "new pod " + pod.key() + (deleted ? " was deleted" : " ended"));
    return;
  }
  if (pod.phase == "Running" && !s.running[i]) {
    s.running[i] = true;
    observe(Observation::Kind::kPodRunning, s.job, s.ids[i]);
    resize_progress(s);
  }
}

void LiveScheduler::resize_progress(Submitted& s) {
  Resize& r = *s.resize;
  if (r.stage != Resize::Stage::kAdding) return;
  for (size_t i = r.first_added; i < s.pods.size(); ++i)
    if (!s.bound[i] || !s.running[i]) return;
  if (r.timer) loop_.cancel(*r.timer);
  r.timer.reset();
  write_hosts(s);
}

void LiveScheduler::write_hosts(Submitted& s) {
  Resize& r = *s.resize;
  r.stage = Resize::Stage::kWritingHosts;
  if (writer_ == nullptr) {
    remove_leaving(s);
    return;
  }
  // The Workers after the resize, by Worker index.
  std::vector<std::pair<int32_t, size_t>> workers;
  for (size_t i = 0; i < s.pods.size(); ++i)
    if (s.worker[i] >= 0 && std::count(r.removed.begin(), r.removed.end(), i) == 0)
      workers.emplace_back(s.worker[i], i);
  std::sort(workers.begin(), workers.end());
  std::string hostfile;
  for (const auto& [index, i] : workers)
    hostfile +=
        s.pods[i].name + " slots=" + std::to_string(std::max(1, s.last[i].request.gpus)) + "\n";
  const std::string job = job_name(s.gang);
  const JobId id = s.job;
  const uint64_t gen = r.generation;
  const bool adding = r.first_added < s.pods.size();
  writer_->write_config_map(
      s.pods.front().namespace_name, hosts_config_map_name(job), {{kHostfileKey, hostfile}},
      {{std::string(kGangLabel), job}}, [this, id, gen, adding](Status result) {
        Submitted* t = resizing(id, gen);
        if (t == nullptr) return;
        if (!result && adding) {
          // The job would not know its new Workers: they go again.
          fail_resize(*t, "writing the host list: " + result.message());
          return;
        }
        if (!result)
          for (size_t i = 0; i < t->pods.size(); ++i)
            if (std::count(t->resize->removed.begin(), t->resize->removed.end(), i) == 0)
              binder_.record(PodEvent{t->pods[i], true, "FailedResize", "Resizing",
                                      "writing the host list: " + result.message() +
                                          "; the Workers that leave are deleted anyway"});
        t->resize->stage = Resize::Stage::kRemoving;
        for (const size_t i : t->resize->removed) binder_.evict(t->pods[i], "scaled in");
        remove_leaving(*t);
      });
}

void LiveScheduler::remove_leaving(Submitted& s) {
  Resize& r = *s.resize;
  if (r.stage == Resize::Stage::kWritingHosts) {  // no writer: straight to the deletions
    r.stage = Resize::Stage::kRemoving;
    for (const size_t i : r.removed) binder_.evict(s.pods[i], "scaled in");
  }
  for (const size_t i : r.removed) {
    // Gone: the informer showed it deleted (placed_pod_ then no longer names it) or ended.
    const auto placed = placed_pod_.find(s.pods[i].key());
    const bool present = placed != placed_pod_.end() && placed->second.first == s.job;
    if (present && !terminal(s.last[i])) return;
  }
  finish_resize(s);
}

void LiveScheduler::finish_resize(Submitted& s) {
  const std::vector<size_t> removed = s.resize->removed;
  s.resize.reset();
  drop_positions(s, removed);
  ++resizes_done_;
  observe(Observation::Kind::kResized, s.job);
  request_cycle();  // the GPUs of the pods that left are free
  advance(s);
}

void LiveScheduler::fail_resize(Submitted& s, const std::string& why) {
  Resize& r = *s.resize;
  if (r.timer) loop_.cancel(*r.timer);
  std::vector<size_t> drop = r.removed;
  for (size_t i = r.first_added; i < s.pods.size(); ++i) drop.push_back(i);
  std::sort(drop.begin(), drop.end());
  for (const size_t i : drop) {
    // A pod whose create has not answered is deleted when it does (resize_created).
    if (!s.pods[i].uid.empty()) binder_.evict(s.pods[i], "resize failed: " + why);
  }
  s.resize.reset();
  drop_positions(s, drop);
  // Until their deletions arrive, the pods bound hold their nodes' resources.
  ++resizes_failed_;
  observe(Observation::Kind::kResizeFailed, s.job, -1, why);
  request_cycle();
  advance(s);
}

void LiveScheduler::drop_positions(Submitted& s, const std::vector<size_t>& drop) {
  std::vector<KubePod> leaving;
  for (const size_t i : drop) {
    const auto placed = placed_pod_.find(s.pods[i].key());
    if (placed != placed_pod_.end() && placed->second.first == s.job) placed_pod_.erase(placed);
    if (!terminal(s.last[i]) && !s.last[i].node_name.empty()) leaving.push_back(s.last[i]);
  }
  size_t out = 0;
  for (size_t i = 0; i < s.pods.size(); ++i) {
    if (std::binary_search(drop.begin(), drop.end(), i)) continue;
    s.pods[out] = s.pods[i];
    s.last[out] = s.last[i];
    s.ids[out] = s.ids[i];
    s.worker[out] = s.worker[i];
    s.running[out] = s.running[i];
    s.succeeded[out] = s.succeeded[i];
    if (i < s.bound.size() && out < s.bound.size()) s.bound[out] = s.bound[i];
    ++out;
  }
  for (auto* v : {&s.running, &s.succeeded}) v->resize(out);
  s.pods.resize(out);
  s.last.resize(out);
  s.ids.resize(out);
  s.worker.resize(out);
  if (!s.bound.empty()) s.bound.resize(out);
  for (size_t i = 0; i < s.pods.size(); ++i)
    placed_pod_[s.pods[i].key()] = {s.job, static_cast<int32_t>(i)};
  // The scheduler releases their allocations with the observation that follows; until the
  // informer shows them gone they hold their nodes as pods Gantry does not place.
  for (const KubePod& p : leaving) (void)live_.occupy(p);
}

void LiveScheduler::abandon_resize(Submitted& s) {
  if (!s.resize) return;
  if (s.resize->timer) loop_.cancel(*s.resize->timer);
  s.resize.reset();
}

}  // namespace gantry::kube
