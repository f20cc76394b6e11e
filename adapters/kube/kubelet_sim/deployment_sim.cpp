#include "adapters/kube/kubelet_sim/deployment_sim.hpp"

#include <algorithm>
#include <charconv>

#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

using json = nlohmann::json;

// i of a pod named "<deployment>-<i>", or -1.
int index_of(const std::string& deployment, const std::string& pod) {
  if (pod.size() <= deployment.size() + 1 || pod.compare(0, deployment.size(), deployment) != 0 ||
      pod[deployment.size()] != '-')
    return -1;
  int v = 0;
  const char* first = pod.data() + deployment.size() + 1;
  const char* last = pod.data() + pod.size();
  const auto [end, ec] = std::from_chars(first, last, v);
  return ec == std::errc() && end == last && v >= 0 ? v : -1;
}

bool belongs(const ServingPod& p, const ServingDeployment& d) {
  return p.namespace_name == d.namespace_name && p.service == d.service &&
         p.predictor == d.predictor;
}

}  // namespace

DeploymentSim::DeploymentSim(KubeClient& client, ApiWorkers& workers, EventLoop& loop,
                             DeploymentSimOptions options)
    : client_(client), workers_(workers), loop_(loop), options_(std::move(options)) {}

DeploymentSim::~DeploymentSim() { stop(); }

std::string DeploymentSim::deployments_path() const {
  return options_.namespace_name.empty()
             ? "/apis/apps/v1/deployments"
             : "/apis/apps/v1/namespaces/" + options_.namespace_name + "/deployments";
}

std::string DeploymentSim::pods_path() const {
  return options_.namespace_name.empty()
             ? "/api/v1/pods"
             : "/api/v1/namespaces/" + options_.namespace_name + "/pods";
}

void DeploymentSim::start() {
  const auto dispatch = [this](std::function<void()> fn) { loop_.post(std::move(fn)); };
  InformerOptions d;
  d.path = deployments_path();
  d.label_selector = std::string(kServingSelector);
  d.dispatch = dispatch;
  deployments_informer_ = std::make_unique<Informer>(client_, std::move(d));
  deployments_informer_->add_handler([this](const InformerEvent& e) {
    if (!stopped_) on_deployment(e.object, e.type == InformerEventType::kDeleted);
  });
  InformerOptions p;
  p.path = pods_path();
  p.label_selector = std::string(kServingSelector);
  p.dispatch = dispatch;
  pods_informer_ = std::make_unique<Informer>(client_, std::move(p));
  pods_informer_->add_handler([this](const InformerEvent& e) {
    if (!stopped_) on_pod(e.object, e.type == InformerEventType::kDeleted);
  });
  // Pods first, so the first reconcile of each Deployment knows its pods.
  pods_informer_->start();
  pods_informer_->wait_for_sync();
  deployments_informer_->start();
}

void DeploymentSim::stop() {
  stopped_ = true;
  if (deployments_informer_) deployments_informer_->stop();
  if (pods_informer_) pods_informer_->stop();
}

void DeploymentSim::on_deployment(const nlohmann::json& object, bool deleted) {
  ServingDeployment d;
  try {
    d = parse_serving_deployment(object);
  } catch (const InputError&) {
    ++stats_.skipped_objects;
    return;
  }
  const std::string key = d.key();
  if (deleted) {
    for (const ServingPod* p : pods_of(d)) delete_pod(*p);
    deployments_.erase(key);
    creating_.erase(key);
  } else {
    deployments_[key] = d;
    reconcile(key);
  }
  if (listener_ != nullptr) listener_->deployment_changed(d, deleted);
}

void DeploymentSim::on_pod(const nlohmann::json& object, bool deleted) {
  ServingPod pod;
  try {
    pod = parse_serving_pod(object);
  } catch (const InputError&) {
    ++stats_.skipped_objects;
    return;
  }
  if (pod.service.empty()) return;
  const std::string key = pod.key();
  if (deleted) {
    pods_.erase(key);
    deleting_.erase(key);
  } else {
    pods_[key] = pod;
  }
  for (auto& [dkey, d] : deployments_) {
    if (!belongs(pod, d)) continue;
    creating_[dkey].erase(pod.name);
    reconcile(dkey);
  }
  if (listener_ != nullptr) listener_->pod_changed(pod, deleted);
}

std::vector<const ServingPod*> DeploymentSim::pods_of(const ServingDeployment& d) const {
  std::vector<const ServingPod*> out;
  for (const auto& [key, p] : pods_)
    if (belongs(p, d) && p.live() && deleting_.count(key) == 0) out.push_back(&p);
  return out;
}

void DeploymentSim::reconcile(const std::string& deployment_key) {
  const auto it = deployments_.find(deployment_key);
  if (it == deployments_.end() || stopped_) return;
  const ServingDeployment& d = it->second;
  std::vector<const ServingPod*> pods = pods_of(d);
  std::set<std::string>& creating = creating_[deployment_key];
  int count = static_cast<int>(pods.size() + creating.size());
  if (count < d.replicas) {
    std::set<int> used;
    for (const auto& [key, p] : pods_)
      if (belongs(p, d)) used.insert(index_of(d.name, p.name));
    for (const std::string& name : creating) used.insert(index_of(d.name, name));
    for (int i = 0; count < d.replicas; ++i) {
      if (used.count(i) != 0) continue;
      create_pod(d, i);
      ++count;
    }
  } else if (count > d.replicas) {
    // A ReplicaSet's order: unbound, then not Ready, then the newest (highest index).
    std::sort(pods.begin(), pods.end(), [&](const ServingPod* a, const ServingPod* b) {
      const auto rank = [&](const ServingPod* p) {
        return std::make_tuple(p->node_name.empty() ? 0 : 1, p->ready ? 1 : 0,
                               -index_of(d.name, p->name), p->name);
      };
      return rank(a) < rank(b);
    });
    for (size_t i = 0; i < pods.size() && count > d.replicas; ++i) {
      delete_pod(*pods[i]);
      --count;
    }
  }
  sync_status(deployment_key);
}

void DeploymentSim::sync_status(const std::string& deployment_key) {
  const auto it = deployments_.find(deployment_key);
  if (it == deployments_.end() || stopped_) return;
  const ServingDeployment& d = it->second;
  int live = 0;
  int ready = 0;
  for (const ServingPod* p : pods_of(d)) {
    ++live;
    ready += p->ready ? 1 : 0;
  }
  const auto status = std::make_tuple(live, ready, d.generation);
  StatusWrite& w = status_writes_[deployment_key];
  // One write at a time per Deployment, so that an older status never lands last; the one in
  // flight is followed by the latest when it is done.
  if (w.inflight || w.written == status) return;
  w.inflight = true;
  w.written = status;
  write_status(d, live, ready);
}

void DeploymentSim::create_pod(const ServingDeployment& d, int index) {
  const std::string name = d.name + "-" + std::to_string(index);
  creating_[d.key()].insert(name);
  const json& t = d.pod_template;
  json metadata = {{"name", name}, {"namespace", d.namespace_name}};
  if (t.contains("metadata") && t["metadata"].is_object()) {
    for (const char* k : {"labels", "annotations"})
      if (t["metadata"].contains(k)) metadata[k] = t["metadata"][k];
  }
  metadata["ownerReferences"] = json::array(
      {{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", d.name}, {"uid", d.uid}}});
  const json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", metadata},
                    {"spec", t.value("spec", json::object())}};
  const std::string collection = "/api/v1/namespaces/" + d.namespace_name + "/pods";
  const std::string dkey = d.key();
  ++stats_.pods_created;
  workers_.submit([this, collection, pod, dkey, name] {
    bool ok = false;
    try {
      const WriteResult r = client_.create(collection, pod);
      ok = r.outcome == WriteOutcome::kOk;
    } catch (const std::exception&) {
      ok = false;
    }
    if (ok) return;  // the informer shows it
    loop_.post([this, dkey, name] {
      if (stopped_) return;
      ++stats_.write_errors;
      creating_[dkey].erase(name);
      loop_.schedule_after(options_.retry_after, [this, dkey] { reconcile(dkey); });
    });
  });
}

void DeploymentSim::delete_pod(const ServingPod& pod) {
  const std::string key = pod.key();
  if (!deleting_.insert(key).second) return;
  ++stats_.pods_deleted;
  const std::string path = "/api/v1/namespaces/" + pod.namespace_name + "/pods/" + pod.name;
  DeleteOptions o;
  o.uid = pod.uid;
  workers_.submit([this, path, o, key] {
    try {
      client_.remove(path, o);  // kNotFound / kConflict: gone already
    } catch (const std::exception&) {
      loop_.post([this, key] {
        if (stopped_) return;
        ++stats_.write_errors;
        deleting_.erase(key);
      });
    }
  });
}

void DeploymentSim::write_status(const ServingDeployment& d, int replicas, int ready) {
  const std::string path =
      "/apis/apps/v1/namespaces/" + d.namespace_name + "/deployments/" + d.name + "/status";
  json status = {{"replicas", replicas},
                 {"updatedReplicas", replicas},
                 {"readyReplicas", ready},
                 {"availableReplicas", ready}};
  if (d.generation > 0) status["observedGeneration"] = d.generation;
  const json patch = {{"metadata", {{"uid", d.uid}}}, {"status", status}};
  ++stats_.status_writes;
  const std::string key = d.key();
  workers_.submit([this, path, patch, key] {
    bool ok = true;
    try {
      client_.patch(path, patch, PatchType::kMerge);
    } catch (const std::exception&) {
      ok = false;
    }
    loop_.post([this, key, ok] {
      if (stopped_) return;
      StatusWrite& w = status_writes_[key];
      w.inflight = false;
      if (!ok) {
        ++stats_.write_errors;
        w.written.reset();
      }
      sync_status(key);
    });
  });
}

}  // namespace gantry::kube
