#include "adapters/kube/world/live_drainer.hpp"

#include "adapters/kube/request_bodies.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

bool ended(const KubePod& p) { return p.phase == "Succeeded" || p.phase == "Failed"; }

}  // namespace

LiveDrainer::LiveDrainer(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                         PodEvictor& evictor, LiveDrainerOptions options)
    : client_(client),
      workers_(workers),
      loop_(loop),
      evictor_(evictor),
      options_(std::move(options)) {
  informer_ = std::make_unique<Informer>(client_, bound_pods_on(loop_));
  informer_->add_handler([this](const InformerEvent& e) {
    if (stopped_) return;
    try {
      on_pod(parse_pod(e.object), e.type == InformerEventType::kDeleted);
    } catch (const InputError&) {
      // Not a pod the drainer can read: not one it evicts.
    }
  });
}

LiveDrainer::~LiveDrainer() { stop(); }

void LiveDrainer::start() { informer_->start(); }

void LiveDrainer::stop() {
  stopped_ = true;
  informer_->stop();
  for (auto& [node, d] : drains_)
    if (d.timer) loop_.cancel(*d.timer);
}

void LiveDrainer::tell(DrainReport::Kind kind, const std::string& node, std::string pod,
                       std::string reason) {
  if (report_) report_(DrainReport{kind, loop_.now(), node, std::move(pod), std::move(reason)});
}

void LiveDrainer::on_pod(const KubePod& pod, bool deleted) {
  const std::string key = pod.key();
  const bool holds = !deleted && !ended(pod) && !pod.node_name.empty() &&
                     pod.scheduler_name == options_.scheduler_name;
  std::string node = pod.node_name;
  if (const auto it = pods_.find(key); it != pods_.end()) node = it->second.node_name;
  if (holds) {
    pods_[key] = pod;
  } else {
    pods_.erase(key);
  }
  if (!holds && drains_.count(node) != 0) check_empty(node);
}

std::vector<PodRef> LiveDrainer::pods_on(const std::string& node) const {
  std::vector<PodRef> out;
  for (const auto& [key, p] : pods_)
    if (p.node_name == node) out.push_back(PodRef{p.namespace_name, p.name, p.uid});
  return out;
}

bool LiveDrainer::drain(const std::string& node, Duration deadline_in, Duration maintenance) {
  if (drains_.count(node) != 0) return false;
  Drain& d = drains_[node];
  d.maintenance = maintenance;
  write_cordon(node, true);
  if (deadline_in <= Duration(0)) {
    deadline(node);
  } else {
    d.timer = loop_.schedule_after(deadline_in, [this, node] { deadline(node); });
    check_empty(node);
  }
  return true;
}

void LiveDrainer::deadline(const std::string& node) {
  const auto it = drains_.find(node);
  if (it == drains_.end() || it->second.in_maintenance) return;
  Drain& d = it->second;
  d.timer.reset();
  d.deadline_passed = true;
  for (const PodRef& p : pods_on(node)) {
    if (!d.evicting.insert(p.key()).second) continue;
    // Before the eviction is asked for: its world reports the workload evicted (reason Drain)
    // rather than finding a pod deleted under it.
    tell(DrainReport::Kind::kEvicting, node, p.key(), kDrainReason);
    evictor_.evict(p, [this, node, p](Status result) {
      if (stopped_) return;
      if (result) {
        tell(DrainReport::Kind::kEvicted, node, p.key(), kDrainReason);
      } else {
        tell(DrainReport::Kind::kEvictionFailed, node, p.key(), result.message());
      }
    });
  }
  check_empty(node);
}

void LiveDrainer::check_empty(const std::string& node) {
  const auto it = drains_.find(node);
  if (it == drains_.end() || it->second.in_maintenance) return;
  if (!pods_on(node).empty()) return;
  Drain& d = it->second;
  d.in_maintenance = true;
  if (d.timer) loop_.cancel(*d.timer);  // the deadline is moot: nothing left to evict
  tell(DrainReport::Kind::kEmpty, node);
  d.timer = loop_.schedule_after(d.maintenance, [this, node] {
    drains_.erase(node);
    write_cordon(node, false);
  });
}

void LiveDrainer::write_cordon(const std::string& node, bool unschedulable) {
  const std::string path = "/api/v1/nodes/" + node;
  workers_.submit([this, path, node, unschedulable] {
    std::string error;
    try {
      client_.patch(path, cordon_patch(unschedulable), PatchType::kMerge);
    } catch (const std::exception& e) {
      error = e.what();
    }
    loop_.post([this, node, unschedulable, error] {
      if (stopped_) return;
      if (!error.empty()) {
        tell(DrainReport::Kind::kError, node, {},
             std::string(unschedulable ? "cordoning" : "uncordoning") + " node " + node + ": " +
                 error);
        return;
      }
      tell(unschedulable ? DrainReport::Kind::kCordoned : DrainReport::Kind::kUncordoned, node);
    });
  });
}

}  // namespace gantry::kube
