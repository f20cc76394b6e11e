#include "adapters/kube/world/kube_world.hpp"

#include <stdexcept>

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
          election_sleeper_, [this] { loop_.post([this] { scheduler_->set_active(true); }); },
          [this] { loop_.post([this] { scheduler_->set_active(false); }); });
      if (!stopping_) election_sleeper_.sleep_for(options_.election.retry_period);
    }
  });
}

bool KubeWorld::campaign() {
  const bool leading = elector_->try_acquire_or_renew();
  loop_.post([this, leading] { scheduler_->set_active(leading); });
  return leading;
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
