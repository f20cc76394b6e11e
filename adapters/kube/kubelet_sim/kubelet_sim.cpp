#include "adapters/kube/kubelet_sim/kubelet_sim.hpp"

#include <algorithm>
#include <bit>
#include <charconv>

#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/kubelet_sim/node_objects.hpp"
#include "adapters/kube/model/gpu_product.hpp"
#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/serving/serving_objects.hpp"
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
  for (NodeId n = 0; n < static_cast<NodeId>(topology_.nodes.size()); ++n)
    node_ids_.emplace(topology_.nodes[static_cast<size_t>(n)].name, n);
  faults_.assign(topology_.nodes.size(), NodeFaults{});
}

KubeletSim::~KubeletSim() { stop(); }

void KubeletSim::start() {
  const Time now = server_now();
  for (NodeId n = 0; n < static_cast<NodeId>(topology_.nodes.size()); ++n) {
    const nlohmann::json node = node_object(topology_, n, now);
    const std::string& name = topology_.nodes[static_cast<size_t>(n)].name;
    const WriteResult r = client_.create("/api/v1/nodes", node);
    if (r.outcome == WriteOutcome::kAlreadyExists) {
      // A node registered by an earlier run: take it over with today's labels and status.
      const std::string path = "/api/v1/nodes/" + name;
      client_.patch(
          path, {{"metadata", {{"labels", node["metadata"]["labels"]}}}, {"spec", node["spec"]}},
          PatchType::kMerge);
      client_.patch(path + "/status", {{"status", node["status"]}}, PatchType::kStrategicMerge);
    }
    // Ready: the node lifecycle controller's part, the not-ready taint off.
    sync_lifecycle_taints(name, false, now);
    ++stats_.nodes_registered;
  }
  if (options_.renew_leases) renew_leases();
  informer_ = std::make_unique<Informer>(client_, bound_pods_on(loop_));
  informer_->add_handler([this](const InformerEvent& e) {
    if (stopped_) return;
    try {
      const KubePod pod = parse_pod(e.object);
      // A serving pod's cold start (serving_objects.hpp); read once, while it is new here.
      const auto played = played_.find(pod.key());
      if ((played == played_.end() || played->second.uid != pod.uid) &&
          pod.labels.count(std::string(kServiceLabel)) != 0) {
        const ServingPod serving = parse_serving_pod(e.object);
        if (serving.has_cold_start) cold_starts_[pod.key()] = serving.cold_start;
      }
      if (options_.exec || !options_.unpullable_images.empty()) {
        if (e.type == InformerEventType::kDeleted) {
          raw_pods_.erase(pod.key());
        } else if (nodes_.count(pod.node_name) != 0) {
          raw_pods_[pod.key()] = e.object;
        }
      }
      on_pod(pod, e.type == InformerEventType::kDeleted);
    } catch (const InputError&) {
      // A pod it cannot read is not one it plays.
    }
  });
  informer_->start();
}

void KubeletSim::stop() {
  stopped_ = true;
  if (informer_) informer_->stop();
  for (auto& [key, p] : played_) {
    if (p.timer) loop_.cancel(*p.timer);
    if (p.kill_timer) loop_.cancel(*p.kill_timer);
  }
  played_.clear();  // kills the processes still running (--exec)
  {
    std::lock_guard lock(logs_mutex_);
    for (auto& [key, process] : running_) logs_[key] = process->output();
    running_.clear();
  }
  if (fault_timer_) loop_.cancel(*fault_timer_);
  fault_timer_.reset();
}

void KubeletSim::renew_leases() {
  const Time now = server_now();
  for (const std::string& node : nodes_) {
    if (node_down(node)) continue;  // a lost node's kubelet says nothing
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

Time KubeletSim::server_now() const {
  return options_.server_now ? options_.server_now() : wall_clock_.now();
}

void KubeletSim::on_pod(const KubePod& pod, bool deleted) {
  if (nodes_.count(pod.node_name) == 0) return;
  const std::string key = pod.key();
  auto it = played_.find(key);
  if (deleted || (it != played_.end() && it->second.uid != pod.uid)) {
    if (it != played_.end()) {
      if (it->second.timer) loop_.cancel(*it->second.timer);
      if (it->second.kill_timer) loop_.cancel(*it->second.kill_timer);
      if (it->second.process) {
        // Gone without its kubelet's confirmation (a force delete): the process is killed.
        std::lock_guard lock(logs_mutex_);
        logs_[key] = it->second.process->output();
        running_.erase(key);
      }
      played_.erase(it);
      pods_.erase(key);
    }
    if (deleted) {
      cold_starts_.erase(key);
      return;
    }
    it = played_.end();
  }
  pods_[key] = pod;
  if (pod.deleting) {
    // The API server waits for this kubelet to confirm (a pod that has ended, or was never
    // bound, is deleted at once and never shows here as deleting).
    if (it == played_.end())
      it = played_.emplace(key, Played{pod.uid, loop_.now(), loop_.now(), std::nullopt}).first;
    if (!it->second.terminating) terminate(pod, it->second);
    return;
  }
  if (it != played_.end() || pod.phase == "Succeeded" || pod.phase == "Failed") return;
  if (node_down(pod.node_name)) {
    // Bound to a lost node: it never starts, and ends as the node's other pods did.
    const std::string path = status_path(pod);
    nlohmann::json patch = {
        {"metadata", {{"uid", pod.uid}}},
        {"status", lost_status(kNodeLostReason, "node " + pod.node_name + " is down")}};
    ++stats_.pods_lost;
    ++stats_.pods_failed;
    workers_.submit([this, path, patch] {
      try {
        client_.patch(path, patch, PatchType::kStrategicMerge);
      } catch (const std::exception&) {
        loop_.post([this] { ++stats_.write_errors; });
      }
    });
    played_.emplace(key, Played{pod.uid, loop_.now(), loop_.now(), std::nullopt});
    return;
  }
  if (unpullable(pod)) {
    Played waiting;
    waiting.uid = pod.uid;
    waiting.waiting = true;
    played_.emplace(key, waiting);
    fail_image_pull(key);
    return;
  }
  Played p;
  p.uid = pod.uid;
  p.due = loop_.now() + options_.pod_startup;
  p.timer = loop_.schedule_at(p.due, [this, key] { set_running(key); });
  played_.emplace(key, p);
}

void KubeletSim::terminate(const KubePod& pod, Played& p) {
  if (options_.exec || p.waiting) {
    terminate_exec(pod, p);
    return;
  }
  if (p.timer) loop_.cancel(*p.timer);
  const int64_t grace =
      std::max<int64_t>(0, pod.deletion_grace_seconds.value_or(
                               pod.termination_grace_seconds.value_or(kDefaultGraceSeconds)));
  const std::string key = pod.key();
  p.terminating = true;
  p.due = loop_.now() + seconds(grace);
  p.timer = loop_.schedule_at(p.due, [this, key] { confirm(key); });
}

void KubeletSim::confirm(const std::string& key) {
  const auto it = played_.find(key);
  if (it == played_.end()) return;
  it->second.timer.reset();
  const KubePod& pod = pods_.at(key);
  const std::string at = format_rfc3339(written(it->second.due));
  nlohmann::json state = {
      {"terminated",
       {{"exitCode", it->second.exit_code}, {"reason", "Error"}, {"finishedAt", at}}}};
  if (it->second.running)
    state["terminated"]["startedAt"] = format_rfc3339(it->second.started_written);
  const nlohmann::json patch = {
      {"metadata", {{"uid", pod.uid}}},
      {"status",
       {{"conditions", {{{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", at}}}},
        {"containerStatuses",
         {{{"name", container_name(key)},
           {"ready", false},
           {"restartCount", 0},
           {"state", state}}}}}}};
  const std::string status = status_path(pod);
  const std::string path = "/api/v1/namespaces/" + pod.namespace_name + "/pods/" + pod.name;
  const std::string uid = pod.uid;
  ++stats_.deletions_confirmed;
  // The status first, then the delete, on one worker: the last word on the pod is its end. A
  // status the server refuses does not keep the pod: it is deleted all the same.
  workers_.submit([this, status, path, patch, uid] {
    try {
      client_.patch(status, patch, PatchType::kStrategicMerge);
    } catch (const std::exception&) {
      loop_.post([this] { ++stats_.write_errors; });
    }
    try {
      DeleteOptions o;
      o.uid = uid;
      o.grace_period_seconds = 0;
      client_.remove(path, o);  // gone already, or another incarnation: nothing to confirm
    } catch (const std::exception&) {
      loop_.post([this] { ++stats_.write_errors; });
    }
  });
}

void KubeletSim::set_running(const std::string& key) {
  const auto it = played_.find(key);
  if (it == played_.end()) return;
  Played& p = it->second;
  const KubePod& pod = pods_.at(key);
  // The instants written are the planned ones (on a wall clock a timer runs a little late, and
  // a pod's recorded life must not depend on that), unless the server's clock has not reached
  // them yet (written()); the start is written once, and again as it was.
  if (options_.exec) {
    p.timer.reset();
    start_exec(key);
    return;
  }
  p.started = p.due;
  p.started_written = written(p.started);
  p.running = true;
  p.timer.reset();
  const std::string at = format_rfc3339(p.started_written);
  const auto cold = cold_starts_.find(key);
  const bool ready = cold == cold_starts_.end();
  write_status(
      pod,
      {{"phase", "Running"},
       {"startTime", at},
       {"conditions",
        {{{"type", "Ready"}, {"status", ready ? "True" : "False"}, {"lastTransitionTime", at}}}},
       {"containerStatuses",
        {{{"name", "main"},
          {"ready", ready},
          {"restartCount", 0},
          {"state", {{"running", {{"startedAt", at}}}}}}}}});
  ++stats_.pods_started;
  if (!ready) {
    p.due = ready_at(cold->second, pod.node_name, p.started);
    p.timer = loop_.schedule_at(p.due, [this, key] { set_ready(key); });
    return;
  }
  if (pod.simulate_duration) {
    p.due = p.started + *pod.simulate_duration;
    p.timer = loop_.schedule_at(p.due, [this, key] { set_ended(key); });
  }
}

Time KubeletSim::ready_at(const ServingColdStart& cold, const std::string& node, Time start) {
  Time t = start;
  auto& images = node_images_[node];
  if (const auto it = images.find(cold.image); it != images.end()) {
    t = std::max(t, it->second);
  } else {
    t = t + cold.image_pull;
    images.emplace(cold.image, t);  // the kubelet keeps pulled images
  }
  if (cold.model_download > Duration(0)) {
    auto& models = node_models_[node];
    const auto it = cold.model_cache ? models.find(cold.model) : models.end();
    if (it != models.end()) {
      t = std::max(t, it->second);
    } else {
      t = t + cold.model_download;
      if (cold.model_cache) models.emplace(cold.model, t);
    }
  }
  return t + cold.load;
}

void KubeletSim::set_ready(const std::string& key) {
  const auto it = played_.find(key);
  if (it == played_.end()) return;
  Played& p = it->second;
  const KubePod& pod = pods_.at(key);
  p.timer.reset();
  const std::string started = format_rfc3339(p.started_written);
  const std::string at = format_rfc3339(written(p.due));
  write_status(
      pod, {{"phase", "Running"},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", at}}}},
            {"containerStatuses",
             {{{"name", "main"},
               {"ready", true},
               {"restartCount", 0},
               {"state", {{"running", {{"startedAt", started}}}}}}}}});
  if (pod.simulate_duration) {
    p.due = std::max(p.due, p.started + *pod.simulate_duration);
    p.timer = loop_.schedule_at(p.due, [this, key] { set_ended(key); });
  }
}

void KubeletSim::set_ended(const std::string& key) {
  const auto it = played_.find(key);
  if (it == played_.end()) return;
  const KubePod& pod = pods_.at(key);
  const int code = exit_code_of(pod);
  const std::string started = format_rfc3339(it->second.started_written);
  const std::string at = format_rfc3339(written(it->second.due));
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
      client_.patch(path, patch, PatchType::kStrategicMerge);
    } catch (const std::exception&) {
      // The pod went (deleted, or replaced: the uid precondition) while we wrote.
      loop_.post([this] { ++stats_.write_errors; });
    }
  });
}

}  // namespace gantry::kube

namespace gantry::kube {

// ---------------------------------------------------------------------------------------------
// Faults

bool KubeletSim::node_down(const std::string& node) const {
  const auto it = node_ids_.find(node);
  return it != node_ids_.end() && faults_[static_cast<size_t>(it->second)].outages > 0;
}

void KubeletSim::schedule_faults(std::vector<FaultEvent> events) {
  if (fault_timer_) loop_.cancel(*fault_timer_);
  fault_timer_.reset();
  fault_events_ = std::move(events);
  if (fault_events_.empty()) return;
  fault_timer_ =
      loop_.schedule_at(std::max(fault_events_.front().at, loop_.now()), [this] { next_fault(0); });
}

void KubeletSim::next_fault(size_t i) {
  fault_timer_.reset();
  if (stopped_) return;
  for (; i < fault_events_.size() && fault_events_[i].at <= loop_.now(); ++i)
    apply_fault(fault_events_[i]);
  if (i < fault_events_.size())
    fault_timer_ = loop_.schedule_at(fault_events_[i].at, [this, i] { next_fault(i); });
}

void KubeletSim::apply_fault(const FaultEvent& e) {
  const auto nodes = static_cast<NodeId>(topology_.nodes.size());
  const bool rack_action = e.action == FaultAction::kRackDown || e.action == FaultAction::kRackUp;
  // The loader checked names against the scenario; ids out of range are a caller's mistake.
  if (!rack_action && (e.node < 0 || e.node >= nodes)) return;
  const auto for_rack = [&](auto&& fn) {
    for (NodeId n = 0; n < nodes; ++n)
      if (topology_.nodes[static_cast<size_t>(n)].rack == e.rack) fn(n);
  };
  switch (e.action) {
    case FaultAction::kNodeDown:
      take_down(e.node, kNodeLostReason, e.duration);
      break;
    case FaultAction::kNodeUp:
      bring_up(e.node, true);
      break;
    case FaultAction::kRackDown:
      for_rack([&](NodeId n) { take_down(n, kRackLostReason, e.duration); });
      break;
    case FaultAction::kRackUp:
      for_rack([&](NodeId n) { bring_up(n, true); });
      break;
    case FaultAction::kGpuFail: {
      NodeFaults& f = faults_[static_cast<size_t>(e.node)];
      const uint64_t bit = uint64_t{1} << e.gpu;
      if (e.gpu < 0 || e.gpu >= 64 || (f.failed_gpus & bit) != 0) break;
      f.failed_gpus |= bit;
      fail_pods_and_write_node(e.node, e.gpu, kGpuFailureReason);
      if (e.duration > Duration(0)) {
        const NodeId n = e.node;
        const int g = e.gpu;
        loop_.schedule_after(e.duration, [this, n, g] {
          if (!stopped_) repair_gpu(n, g);
        });
      }
      break;
    }
    case FaultAction::kGpuRepair:
      repair_gpu(e.node, e.gpu);
      break;
    case FaultAction::kDrain:
      ++stats_.faults_ignored;
      return;
  }
  ++stats_.faults_applied;
}

void KubeletSim::take_down(NodeId n, std::string_view reason, Duration for_how_long) {
  NodeFaults& f = faults_[static_cast<size_t>(n)];
  if (f.outages++ == 0) fail_pods_and_write_node(n, -1, reason);
  if (for_how_long > Duration(0)) {
    const uint32_t generation = f.generation;
    loop_.schedule_after(for_how_long, [this, n, generation] {
      if (!stopped_ && faults_[static_cast<size_t>(n)].generation == generation) bring_up(n, false);
    });
  }
}

void KubeletSim::bring_up(NodeId n, bool all_outages) {
  NodeFaults& f = faults_[static_cast<size_t>(n)];
  if (f.outages == 0) return;
  if (all_outages) {
    f.outages = 0;
    ++f.generation;
  } else {
    --f.outages;
  }
  if (f.outages > 0) return;
  write_node(n, {});
}

void KubeletSim::repair_gpu(NodeId n, int gpu) {
  NodeFaults& f = faults_[static_cast<size_t>(n)];
  const uint64_t bit = uint64_t{1} << gpu;
  if (gpu < 0 || gpu >= 64 || (f.failed_gpus & bit) == 0) return;
  f.failed_gpus &= ~bit;
  write_node(n, {});
}

nlohmann::json KubeletSim::lost_status(std::string_view reason, const std::string& message) const {
  const std::string at = format_rfc3339(server_now());
  return {{"phase", "Failed"},
          {"reason", std::string(reason)},
          {"message", message},
          {"conditions", {{{"type", "Ready"}, {"status", "False"}, {"lastTransitionTime", at}}}},
          {"containerStatuses",
           {{{"name", "main"},
             {"ready", false},
             {"restartCount", 0},
             {"state",
              {{"terminated",
                {{"exitCode", kFaultExitCode}, {"reason", "Error"}, {"finishedAt", at}}}}}}}}};
}

void KubeletSim::fail_pods_and_write_node(NodeId n, int gpu, std::string_view reason) {
  const std::string& node = topology_.nodes[static_cast<size_t>(n)].name;
  const std::string message =
      gpu >= 0 ? "GPU " + std::to_string(gpu) + " of node " + node + " failed"
               : "node " + node + (reason == kRackLostReason ? " lost with its rack" : " is down");
  std::vector<std::pair<std::string, nlohmann::json>> patches;
  for (auto& [key, pod] : pods_) {
    if (pod.node_name != node || pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    if (gpu >= 0 &&
        std::find(pod.gpu_index.begin(), pod.gpu_index.end(), gpu) == pod.gpu_index.end())
      continue;
    const auto p = played_.find(key);
    // Not played here (deleted, replaced), or being deleted: a pod whose kubelet is gone is
    // deleted all the same at the end of its grace (the pod garbage collector's part).
    if (p == played_.end() || p->second.terminating) continue;
    if (p->second.timer) loop_.cancel(*p->second.timer);
    p->second.timer.reset();
    pod.phase = "Failed";  // not played on: the informer's copy comes later
    patches.emplace_back(
        status_path(pod),
        nlohmann::json{{"metadata", {{"uid", pod.uid}}}, {"status", lost_status(reason, message)}});
    ++stats_.pods_lost;
    ++stats_.pods_failed;
  }
  write_node(n, std::move(patches));
}

void KubeletSim::write_node(NodeId n,
                            std::vector<std::pair<std::string, nlohmann::json>> pod_patches) {
  const NodeFaults& f = faults_[static_cast<size_t>(n)];
  const Time now = server_now();
  const nlohmann::json object = node_object(topology_, n, now);
  const std::string& name = topology_.nodes[static_cast<size_t>(n)].name;
  const std::string path = "/api/v1/nodes/" + name;
  nlohmann::json status = object["status"];
  const std::string at = format_rfc3339(now);
  const bool down = f.outages > 0;
  if (down) {
    status["conditions"] = {{{"type", "Ready"},
                             {"status", "Unknown"},
                             {"reason", "NodeStatusUnknown"},
                             {"message", "Kubelet stopped posting node status."},
                             {"lastHeartbeatTime", at},
                             {"lastTransitionTime", at}}};
  }
  std::string unhealthy;
  for (int g = 0; g < 64; ++g)
    if ((f.failed_gpus >> g) & 1) unhealthy += (unhealthy.empty() ? "" : ",") + std::to_string(g);
  const std::string gpu_key(kGpuResource);
  if (!unhealthy.empty() && status["allocatable"].contains(gpu_key)) {
    const int gpus = std::stoi(status["allocatable"][gpu_key].get<std::string>());
    status["allocatable"][gpu_key] = std::to_string(gpus - std::popcount(f.failed_gpus));
  }
  const nlohmann::json annotations = {
      {std::string(kUnhealthyGpusAnnotation),
       unhealthy.empty() ? nlohmann::json(nullptr) : nlohmann::json(unhealthy)}};
  workers_.submit(
      [this, name, path, status, annotations, down, now, patches = std::move(pod_patches)] {
        for (const auto& [pod_path, patch] : patches) {
          try {
            client_.patch(pod_path, patch, PatchType::kStrategicMerge);
          } catch (const std::exception&) {
            loop_.post([this] { ++stats_.write_errors; });
          }
        }
        try {
          client_.patch(path, {{"metadata", {{"annotations", annotations}}}}, PatchType::kMerge);
          // Never usable in between: not ready before tainted, untainted before ready.
          if (!down) sync_lifecycle_taints(name, down, now);
          client_.patch(path + "/status", {{"status", status}}, PatchType::kStrategicMerge);
          if (down) sync_lifecycle_taints(name, down, now);
        } catch (const std::exception&) {
          loop_.post([this] { ++stats_.write_errors; });
        }
      });
}

void KubeletSim::sync_lifecycle_taints(const std::string& node, bool down, Time at) {
  const nlohmann::json object = client_.get("/api/v1/nodes/" + node);
  const nlohmann::json spec = object.value("spec", nlohmann::json::object());
  const nlohmann::json before = spec.value("taints", nlohmann::json::array());
  const nlohmann::json after = lifecycle_taints(before, down, at);
  if (after == before) return;
  // The whole list, as the node lifecycle controller writes it (taints merge as a whole).
  client_.patch("/api/v1/nodes/" + node,
                {{"spec", {{"taints", after.empty() ? nlohmann::json(nullptr) : after}}}},
                PatchType::kMerge);
}

}  // namespace gantry::kube
