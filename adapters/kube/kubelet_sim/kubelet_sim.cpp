#include "adapters/kube/kubelet_sim/kubelet_sim.hpp"

#include <charconv>

#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/kubelet_sim/node_objects.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

constexpr Duration kLeaseRenewWall = seconds(10);

std::string status_path(const KubePod& p) {
  return "/api/v1/namespaces/" + p.namespace_name + "/pods/" + p.name + "/status";
}

// The exit code the pod ends with: gantry.dev/simulate-exit-code, else 1 for the outcome
// "failed", else 0.
int exit_code_of(const KubePod& p) {
  const auto it = p.annotations.find(std::string(kSimulateExitCodeAnnotation));
  if (it == p.annotations.end()) {
    const auto outcome = p.annotations.find(std::string(kSimulateOutcomeAnnotation));
    return outcome != p.annotations.end() && outcome->second == "failed" ? 1 : 0;
  }
  int v = 0;
  const auto [end, ec] =
      std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  return ec == std::errc() && end == it->second.data() + it->second.size() ? v : 1;
}

}  // namespace

KubeletSim::KubeletSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop, Topology topology,
                       KubeletSimOptions options)
    : client_(client),
      workers_(workers),
      loop_(loop),
      topology_(std::move(topology)),
      options_(options) {
  for (const NodeInfo& n : topology_.nodes) nodes_.insert(n.name);
}

KubeletSim::~KubeletSim() { stop(); }

void KubeletSim::start() {
  const Time now = loop_.now();
  for (NodeId n = 0; n < static_cast<NodeId>(topology_.nodes.size()); ++n) {
    const nlohmann::json node = node_object(topology_, n, now);
    const WriteResult r = client_.create("/api/v1/nodes", node);
    if (r.outcome == WriteOutcome::kAlreadyExists) {
      // A node registered by an earlier run: take it over with today's labels and status.
      const std::string path = "/api/v1/nodes/" + topology_.nodes[static_cast<size_t>(n)].name;
      client_.patch(
          path, {{"metadata", {{"labels", node["metadata"]["labels"]}}}, {"spec", node["spec"]}},
          PatchType::kMerge);
      client_.patch(path + "/status", {{"status", node["status"]}}, PatchType::kMerge);
    }
    ++stats_.nodes_registered;
  }
  if (options_.renew_leases) renew_leases();
  InformerOptions io;
  io.path = "/api/v1/pods";
  io.field_selector = "spec.nodeName!=";
  io.dispatch = [this](std::function<void()> fn) { loop_.post(std::move(fn)); };
  informer_ = std::make_unique<Informer>(client_, io);
  informer_->add_handler([this](const InformerEvent& e) {
    if (stopped_) return;
    try {
      on_pod(parse_pod(e.object), e.type == InformerEventType::kDeleted);
    } catch (const InputError&) {
      // A pod it cannot read is not one it plays.
    }
  });
  informer_->start();
}

void KubeletSim::stop() {
  stopped_ = true;
  if (informer_) informer_->stop();
  for (auto& [key, p] : played_)
    if (p.timer) loop_.cancel(*p.timer);
  played_.clear();
}

void KubeletSim::renew_leases() {
  const Time now = loop_.now();
  for (const std::string& node : nodes_) {
    const std::string version = lease_versions_[node];
    workers_.submit([this, node, now, version] {
      try {
        const nlohmann::json lease = node_lease(node, now, version);
        const std::string collection =
            "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases";
        WriteResult r = version.empty() ? client_.create(collection, lease)
                                        : client_.update(collection + "/" + node, lease);
        if (r.outcome == WriteOutcome::kAlreadyExists || r.outcome == WriteOutcome::kConflict)
          r.object = client_.get(collection + "/" + node);
        const std::string rv = r.object["metadata"].value("resourceVersion", "");
        loop_.post([this, node, rv] { lease_versions_[node] = rv; });
      } catch (const std::exception&) {
        loop_.post([this] { ++stats_.write_errors; });
      }
    });
  }
  const auto every = Duration(static_cast<int64_t>(kLeaseRenewWall.micros() * options_.speed));
  loop_.schedule_after(every, [this] {
    if (!stopped_) renew_leases();
  });
}

void KubeletSim::on_pod(const KubePod& pod, bool deleted) {
  if (nodes_.count(pod.node_name) == 0) return;
  const std::string key = pod.key();
  auto it = played_.find(key);
  if (deleted || pod.deleting || (it != played_.end() && it->second.uid != pod.uid)) {
    if (it != played_.end()) {
      if (it->second.timer) loop_.cancel(*it->second.timer);
      played_.erase(it);
      pods_.erase(key);
    }
    if (deleted || pod.deleting) return;
    it = played_.end();
  }
  pods_[key] = pod;
  if (it != played_.end() || pod.phase == "Succeeded" || pod.phase == "Failed") return;
  Played p;
  p.uid = pod.uid;
  p.due = loop_.now() + options_.pod_startup;
  p.timer = loop_.schedule_at(p.due, [this, key] { set_running(key); });
  played_.emplace(key, p);
}

void KubeletSim::set_running(const std::string& key) {
  const auto it = played_.find(key);
  if (it == played_.end()) return;
  Played& p = it->second;
  const KubePod& pod = pods_.at(key);
  // The instants written are the planned ones: on a wall clock a timer runs a little late,
  // and a pod's recorded life must not depend on that.
  p.started = p.due;
  p.timer.reset();
  const std::string at = format_rfc3339(p.started);
  write_status(
      pod, {{"phase", "Running"},
            {"startTime", at},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", at}}}},
            {"containerStatuses",
             {{{"name", "main"},
               {"ready", true},
               {"restartCount", 0},
               {"state", {{"running", {{"startedAt", at}}}}}}}}});
  ++stats_.pods_started;
  if (pod.simulate_duration) {
    p.due = p.started + *pod.simulate_duration;
    p.timer = loop_.schedule_at(p.due, [this, key] { set_ended(key); });
  }
}

void KubeletSim::set_ended(const std::string& key) {
  const auto it = played_.find(key);
  if (it == played_.end()) return;
  const KubePod& pod = pods_.at(key);
  const int code = exit_code_of(pod);
  const std::string started = format_rfc3339(it->second.started);
  const std::string at = format_rfc3339(it->second.due);
  const auto outcome = pod.annotations.find(std::string(kSimulateOutcomeAnnotation));
  if (outcome != pod.annotations.end() && outcome->second == "error") {
    // An infrastructure failure, as the kubelet reports an eviction: no exit code of its own.
    write_status(pod, {{"phase", "Failed"},
                       {"reason", "Evicted"},
                       {"message", "gantry kubelet-sim: simulated infrastructure failure"}});
    ++stats_.pods_failed;
    it->second.timer.reset();
    return;
  }
  write_status(
      pod, {{"phase", code == 0 ? "Succeeded" : "Failed"},
            {"conditions", {{{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", at}}}},
            {"containerStatuses",
             {{{"name", "main"},
               {"ready", false},
               {"restartCount", 0},
               {"state",
                {{"terminated",
                  {{"exitCode", code},
                   {"reason", code == 0 ? "Completed" : "Error"},
                   {"startedAt", started},
                   {"finishedAt", at}}}}}}}}});
  ++(code == 0 ? stats_.pods_succeeded : stats_.pods_failed);
  it->second.timer.reset();
}

void KubeletSim::write_status(const KubePod& pod, nlohmann::json status) {
  const std::string path = status_path(pod);
  const nlohmann::json patch = {{"metadata", {{"uid", pod.uid}}}, {"status", std::move(status)}};
  workers_.submit([this, path, patch] {
    try {
      client_.patch(path, patch, PatchType::kMerge);
    } catch (const std::exception&) {
      // The pod went (deleted, or replaced: the uid precondition) while we wrote.
      loop_.post([this] { ++stats_.write_errors; });
    }
  });
}

}  // namespace gantry::kube
