#include "adapters/kube/kubelet_sim/default_scheduler_sim.hpp"

namespace gantry::kube {

DefaultSchedulerSim::DefaultSchedulerSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                                         std::vector<std::string> nodes,
                                         std::function<bool(const std::string&)> usable)
    : client_(client),
      workers_(workers),
      loop_(loop),
      nodes_(std::move(nodes)),
      usable_(std::move(usable)) {}

DefaultSchedulerSim::~DefaultSchedulerSim() { stop(); }

void DefaultSchedulerSim::start() {
  InformerOptions o;
  o.path = "/api/v1/pods";
  // What kube-scheduler's own pod informer asks for: unassigned pods of its name.
  o.field_selector = "spec.nodeName=,spec.schedulerName=default-scheduler";
  o.dispatch = [this](std::function<void()> fn) { loop_.post(std::move(fn)); };
  informer_ = std::make_unique<Informer>(client_, o);
  informer_->add_handler([this](const InformerEvent& e) {
    if (stopped_ || e.type == InformerEventType::kDeleted || nodes_.empty()) return;
    const nlohmann::json& meta = e.object.value("metadata", nlohmann::json::object());
    const std::string uid = meta.value("uid", "");
    if (meta.contains("deletionTimestamp") || !sent_.insert(uid).second) return;
    std::string node;
    for (size_t tries = 0; tries < nodes_.size() && node.empty(); ++tries) {
      const std::string& candidate = nodes_[next_++ % nodes_.size()];
      if (!usable_ || usable_(candidate)) node = candidate;
    }
    if (node.empty()) {
      sent_.erase(uid);  // no node now: the pod's next change tries again
      return;
    }
    ++bound_;
    workers_.submit(
        [this, ns = meta.value("namespace", ""), name = meta.value("name", ""), node, uid] {
          try {
            client_.bind(ns, name, node, uid);  // a conflict: bound by someone else meanwhile
          } catch (const std::exception&) {
          }
        });
  });
  informer_->start();
}

void DefaultSchedulerSim::stop() {
  stopped_ = true;
  if (informer_) informer_->stop();
}

}  // namespace gantry::kube
