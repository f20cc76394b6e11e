#include "adapters/kube/world/gang_assembly.hpp"

#include <algorithm>
#include <charconv>
#include <set>

namespace gantry::kube {

namespace {

std::optional<int64_t> gang_index(const KubePod& p) {
  const auto it = p.annotations.find(std::string(kGangIndexAnnotation));
  if (it == p.annotations.end()) return std::nullopt;
  int64_t v = 0;
  const auto [end, ec] =
      std::from_chars(it->second.data(), it->second.data() + it->second.size(), v);
  if (ec != std::errc() || end != it->second.data() + it->second.size() || v < 0)
    return std::nullopt;
  return v;
}

RoleKind role_of(const KubePod& p) {
  const auto it = p.labels.find(std::string(kReplicaTypeLabel));
  if (it == p.labels.end()) return RoleKind::kWorker;
  std::string t = it->second;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
  if (t == "ps") return RoleKind::kPS;
  if (t == "chief") return RoleKind::kChief;
  if (t == "evaluator") return RoleKind::kEvaluator;
  if (t == "master") return RoleKind::kMaster;
  if (t == "launcher") return RoleKind::kLauncher;
  return RoleKind::kWorker;
}

// The queue every pod names ("" when none does), or nullopt when they disagree.
std::optional<std::string> common_queue(const Gang& gang) {
  std::optional<std::string> queue;
  for (const auto& [name, pod] : gang.pods) {
    if (queue && *queue != pod.queue) return std::nullopt;
    queue = pod.queue;
  }
  return queue.value_or(std::string());
}

}  // namespace

std::string gang_key(const KubePod& pod) {
  return pod.namespace_name + "/" + (pod.gang.empty() ? pod.name : pod.gang);
}

std::vector<const KubePod*> Gang::ordered() const {
  std::vector<const KubePod*> out;
  out.reserve(pods.size());
  bool indexed = true;
  for (const auto& [name, pod] : pods) {
    out.push_back(&pod);
    indexed = indexed && gang_index(pod).has_value();
  }
  if (indexed) {
    std::stable_sort(out.begin(), out.end(), [](const KubePod* a, const KubePod* b) {
      return *gang_index(*a) < *gang_index(*b);
    });
  }
  return out;
}

JobSpec gang_job_spec(const Gang& gang, Time now) {
  JobSpec spec;
  spec.name = gang.key;
  spec.submit = now;
  const std::vector<const KubePod*> pods = gang.ordered();
  spec.priority = INT32_MIN;
  for (const KubePod* p : pods) {
    spec.priority = std::max(spec.priority, static_cast<int>(p->priority));
    const RoleKind kind = role_of(*p);
    // Consecutive pods of one kind with one request are one role with replicas: pod order and
    // ids stay the simulator's (role by role, replica by replica), and an elastic gang's
    // trailing Workers are its one elastic role.
    if (!spec.roles.empty() && spec.roles.back().kind == kind &&
        spec.roles.back().per_replica == p->request) {
      ++spec.roles.back().replicas;
    } else {
      spec.roles.push_back(RoleSpec{kind, 1, p->request});
    }
  }
  if (pods.empty()) spec.priority = 0;
  // Elasticity: what the pods say (gang_refusal() refuses a gang whose pods disagree).
  for (const KubePod* p : pods) {
    if (p->elastic.enabled()) spec.elastic = p->elastic;
    if (p->restart_policy) spec.restart_policy = *p->restart_policy;
  }
  spec.queue = common_queue(gang).value_or(std::string());
  if (!pods.empty()) {
    spec.tenant = pods.front()->namespace_name;
    spec.node_selector = pods.front()->node_selector;
    spec.tolerations = pods.front()->tolerations;
  }
  return spec;
}

std::optional<std::string> gang_refusal(const Gang& gang, const AdmissionConfig& admission) {
  const KubePod* first = nullptr;
  for (const auto& [name, pod] : gang.pods) {
    if (first == nullptr) {
      first = &pod;
      continue;
    }
    const ElasticSpec& a = first->elastic;
    const ElasticSpec& b = pod.elastic;
    if (a.min_replicas != b.min_replicas || a.max_replicas != b.max_replicas ||
        a.scale_step != b.scale_step || a.resize_cost != b.resize_cost ||
        first->restart_policy != pod.restart_policy)
      return "the pods of gang " + gang.key + " disagree on their elasticity (annotations " +
             std::string(kElasticMinAnnotation) + ", " + std::string(kElasticMaxAnnotation) + ", " +
             std::string(kElasticStepAnnotation) + ", " + std::string(kResizeCostAnnotation) +
             ", " + std::string(kRestartPolicyAnnotation) + "): pods " + first->name + " and " +
             pod.name;
  }
  if (first != nullptr && first->elastic.enabled()) {
    const JobSpec spec = gang_job_spec(gang, Time{});
    if (spec.roles.back().kind != RoleKind::kWorker)
      return "gang " + gang.key + " is elastic, but its last pods are not Workers";
  }
  if (!admission.enabled()) return std::nullopt;  // the label means nothing without queues
  const std::optional<std::string> queue = common_queue(gang);
  if (!queue) {
    std::set<std::string> queues;
    for (const auto& [name, pod] : gang.pods) queues.insert("'" + pod.queue + "'");
    std::string names;
    for (const std::string& q : queues) names += (names.empty() ? "" : ", ") + q;
    return "the pods of gang " + gang.key + " name different admission queues (label " +
           std::string(kQueueLabel) + "): " + names;
  }
  if (queue->empty())
    return "gang " + gang.key + " names no admission queue: label its pods " +
           std::string(kQueueLabel) + "=<queue>";
  std::string known;
  for (const QueueSpec& q : admission.queues) {
    if (q.name == *queue) return std::nullopt;
    known += (known.empty() ? "" : ", ") + q.name;
  }
  return "gang " + gang.key + " names the admission queue '" + *queue +
         "', which is not configured (queues: " + known + ")";
}

std::optional<int32_t> worker_index(const KubePod& pod, int32_t fixed) {
  const std::string prefix = (pod.gang.empty() ? pod.name : pod.gang) + "-worker-";
  if (pod.name.size() > prefix.size() && pod.name.compare(0, prefix.size(), prefix) == 0) {
    int32_t v = 0;
    const char* begin = pod.name.data() + prefix.size();
    const char* end = pod.name.data() + pod.name.size();
    const auto [at, ec] = std::from_chars(begin, end, v);
    if (ec == std::errc() && at == end && v >= 0) return v;
  }
  if (const std::optional<int64_t> i = gang_index(pod); i && *i >= fixed && *i <= INT32_MAX)
    return static_cast<int32_t>(*i - fixed);
  return std::nullopt;
}

Gang& GangAssembly::add(const KubePod& pod) {
  const std::string key = gang_key(pod);
  Gang& g = gangs_[key];
  g.key = key;
  g.size = pod.gang.empty() ? 1 : pod.gang_size;
  g.pods[pod.name] = pod;
  gang_of_[pod.key()] = key;
  return g;
}

std::optional<std::string> GangAssembly::remove(const std::string& namespace_name,
                                                const std::string& name) {
  const auto it = gang_of_.find(namespace_name + "/" + name);
  if (it == gang_of_.end()) return std::nullopt;
  const std::string key = it->second;
  gang_of_.erase(it);
  if (const auto g = gangs_.find(key); g != gangs_.end()) {
    g->second.pods.erase(name);
    if (g->second.pods.empty()) gangs_.erase(g);
  }
  return key;
}

void GangAssembly::erase(const std::string& key) {
  const auto g = gangs_.find(key);
  if (g == gangs_.end()) return;
  for (const auto& [name, pod] : g->second.pods) gang_of_.erase(pod.key());
  gangs_.erase(g);
}

Gang* GangAssembly::find(const std::string& key) {
  const auto it = gangs_.find(key);
  return it == gangs_.end() ? nullptr : &it->second;
}

}  // namespace gantry::kube
