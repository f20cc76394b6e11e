#include "adapters/kube/world/kube_world.hpp"

#include <optional>
#include <stdexcept>

#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

KubeWorld::KubeWorld(KubeClient& client, EventLoop& loop, KubeWorldOptions options)
    : client_(client),
      loop_(loop),
      options_(std::move(options)),
      workers_(options_.api_threads),
      event_workers_(2),
      cluster_(options_.model),
      binder_(client, workers_, event_workers_, loop, options_.identity),
      evictor_(client, workers_, loop, options_.eviction),
      resize_writer_(client, workers_, loop) {
  scheduler_ =
      std::make_unique<LiveScheduler>(loop_, cluster_, binder_, evictor_, options_.scheduler);
  scheduler_->set_resize_writer(&resize_writer_);
  if (options_.drains) {
    drainer_ = std::make_unique<LiveDrainer>(
        client_, workers_, loop_, evictor_,
        LiveDrainerOptions{.scheduler_name = options_.scheduler.scheduler_name});
    drainer_->on_report([this](const DrainReport& r) {
      if (r.kind == DrainReport::Kind::kEvicting) scheduler_->drain_pod(r.pod);
      // A requested drain's state follows its cordon and its uncordon.
      if (const auto it = requests_running_.find(r.node); it != requests_running_.end()) {
        if (r.kind == DrainReport::Kind::kCordoned)
          write_drain_state(r.node, drain_state_value(it->second, "draining", r.at));
        if (r.kind == DrainReport::Kind::kUncordoned) {
          write_drain_state(r.node, drain_state_value(it->second, "done", r.at));
          requests_running_.erase(it);
        }
      }
      if (drain_report_) drain_report_(r);
    });
  }
  const auto dispatch = [this](std::function<void()> fn) { loop_.post(std::move(fn)); };
  InformerOptions nodes;
  nodes.path = "/api/v1/nodes";
  nodes.dispatch = dispatch;
  nodes_ = std::make_unique<Informer>(client_, nodes);
  nodes_->add_handler([this](const InformerEvent& e) {
    if (e.type == InformerEventType::kDeleted) {
      scheduler_->node_deleted(e.object);
    } else {
      scheduler_->node_changed(e.object);
      if (drainer_) drain_request_seen(e.object);
    }
  });
  InformerOptions pods;
  pods.path = "/api/v1/pods";
  pods.dispatch = dispatch;
  pods_ = std::make_unique<Informer>(client_, pods);
  pods_->add_handler([this](const InformerEvent& e) {
    if (e.type == InformerEventType::kDeleted) {
      scheduler_->pod_deleted(e.object);
    } else {
      scheduler_->pod_changed(e.object);
    }
  });
  if (options_.leader_election) {
    if (options_.election.identity.empty()) options_.election.identity = options_.identity;
    elector_ = std::make_unique<LeaderElector>(client_, options_.election);
    scheduler_->set_active(false);
  }
}

KubeWorld::~KubeWorld() { stop(); }

void KubeWorld::start() {
  nodes_->start();
  pods_->start();
  if (drainer_) drainer_->start();
  if (!elector_ || !options_.election_thread) return;
  election_thread_ = std::thread([this] {
    while (!stopping_) {
      elector_->run(
          election_sleeper_, [this] { loop_.post([this] { lead(true); }); },
          [this] { loop_.post([this] { lead(false); }); });
      if (!stopping_) election_sleeper_.sleep_for(options_.election.retry_period);
    }
  });
}

bool KubeWorld::campaign() {
  const bool leading = elector_->try_acquire_or_renew();
  loop_.post([this, leading] { lead(leading); });
  return leading;
}

void KubeWorld::lead(bool leading) {
  const bool was = scheduler_->active();
  scheduler_->set_active(leading);
  if (leading && !was && drainer_)
    for (const nlohmann::json& node : nodes_->cache().list()) drain_request_seen(node);
  if (leadership_) leadership_(leading);
}

void KubeWorld::drain_request_seen(const nlohmann::json& object) {
  if (stopping_ || !scheduler_->active()) return;
  KubeNode node;
  try {
    node = parse_node(object);
  } catch (const InputError&) {
    return;  // the scheduler counts it (skipped_objects)
  }
  if (node.drain_request.empty()) return;
  std::optional<DrainRequest> request;
  std::string id = node.drain_request;
  std::string refusal;
  try {
    request = parse_drain_request(node);
    id = request->requested;
  } catch (const InputError& e) {
    refusal = e.what();
  }
  // Taken by this life already, or by an earlier one (or another replica): the state says so.
  if (requests_taken_[node.name] == id || drain_state_requested(node) == id) return;
  requests_taken_[node.name] = id;
  if (refusal.empty() && !drainer_->drain(node.name, request->deadline, request->maintenance))
    refusal = "node " + node.name + " is draining already";
  if (!refusal.empty()) {
    ++requests_refused_;
    write_drain_state(node.name, drain_state_value(id, "refused", loop_.now(), refusal));
    return;
  }
  ++requests_started_;
  requests_running_[node.name] = id;
}

void KubeWorld::write_drain_state(const std::string& node, std::string value) {
  const std::string path = "/api/v1/nodes/" + node;
  workers_.submit([this, path, node, value = std::move(value)] {
    std::string error;
    try {
      client_.patch(path, annotations_patch({{std::string(kDrainStateAnnotation), value}}),
                    PatchType::kMerge);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (error.empty()) return;
    loop_.post([this, node, error] {
      if (stopping_ || !drain_report_) return;
      drain_report_(DrainReport{
          DrainReport::Kind::kError,
          loop_.now(),
          node,
          {},
          "writing " + std::string(kDrainStateAnnotation) + " of node " + node + ": " + error});
    });
  });
}

bool KubeWorld::drain(const std::string& node, Duration deadline, Duration maintenance) {
  if (!drainer_) throw std::logic_error("KubeWorld::drain needs KubeWorldOptions::drains");
  return drainer_->drain(node, deadline, maintenance);
}

void KubeWorld::stop() {
  if (stopping_.exchange(true)) return;
  election_sleeper_.interrupt();
  if (election_thread_.joinable()) election_thread_.join();
  nodes_->stop();
  pods_->stop();
  if (drainer_) drainer_->stop();
  workers_.wait_idle();
  event_workers_.wait_idle();
}

}  // namespace gantry::kube
