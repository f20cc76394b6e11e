#include "engine/policy/job_queue.hpp"

#include <map>

namespace gantry {

namespace {

// Interning keys: the type name, a NUL, then the numbers. Names never contain NUL.
void append_number(std::string& key, int64_t v) {
  key += std::to_string(v);
  key += ',';
}

}  // namespace

JobQueue::Handle JobQueue::push(JobId id, const JobSpec& spec) {
  std::map<int, int> per_gpus;
  std::vector<std::string> models = spec.allowed_gpu_models();
  std::string models_key;
  for (const std::string& m : models) {
    models_key += m;
    models_key += '|';
  }
  std::string full_key = models_key;
  full_key += '\0';
  FullShape full;
  int share_pods = 0;
  for (const RoleSpec& role : spec.roles) {
    if (role.replicas <= 0) continue;
    const Resources& r = role.per_replica;
    if (r.gpus > 0) per_gpus[r.gpus] += role.replicas;
    if (r.gpu_milli > 0) share_pods += role.replicas;
    append_number(full_key, r.cpu_milli);
    append_number(full_key, r.memory_bytes);
    append_number(full_key, r.gpus);
    append_number(full_key, r.gpu_milli);
    append_number(full_key, role.replicas);
    full_key += ';';
  }
  full.pods = spec.pod_requests();
  // Constraints, NUL-separated (names never contain NUL).
  for (const auto& [k, v] : spec.node_selector) full_key += '\0' + k + '=' + v;
  for (const Toleration& t : spec.tolerations) {
    full_key += '\0' + t.key + (t.op == Toleration::Operator::kExists ? "?" : "=") + t.value + '/';
    full_key += t.any_effect ? "*" : to_string(t.effect);
  }
  full.node_selector = spec.node_selector;
  full.tolerations = spec.tolerations;

  GpuShape shape;
  shape.gpu_models = std::move(models);
  shape.share_pods = share_pods;
  std::string group_key = models_key;
  group_key += '\0';
  append_number(group_key, share_pods);
  for (const auto& [gpus, pods] : per_gpus) {
    shape.counts.emplace_back(gpus, pods);
    shape.total_gpus += gpus * pods;
    append_number(group_key, gpus);
    append_number(group_key, pods);
  }

  auto [git, group_new] = group_ids_.try_emplace(group_key, static_cast<uint32_t>(groups_.size()));
  if (group_new) groups_.push_back(Group{std::move(shape), {}});
  auto [fit, full_new] =
      full_shape_ids_.try_emplace(full_key, static_cast<uint32_t>(full_shapes_.size()));
  if (full_new) full_shapes_.push_back(std::move(full));

  QueuedJob job;
  job.key.rank = order_ == QueueOrder::kPriority ? -static_cast<int64_t>(spec.priority) : 0;
  job.key.submit = spec.submit.micros();
  job.key.seq = next_seq_++;
  job.id = id;
  job.spec = &spec;
  job.full_shape = fit->second;
  const auto inserted = groups_[git->second].jobs.insert(job).first;
  ++size_;
  return Handle{git->second, inserted};
}

std::set<QueuedJob>::iterator JobQueue::erase(uint32_t g, std::set<QueuedJob>::iterator it) {
  --size_;
  return groups_[g].jobs.erase(it);
}

}  // namespace gantry
