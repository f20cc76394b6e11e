#pragma once
// JobQueue: the scheduler's pending jobs in queue order, grouped by shape so that one scheduling
// cycle can skip every job of a shape that is known not to fit without looking at each job.
//
// Queue order (SchedulerConfig::order): kFifo sorts by submit time, then enqueue order;
// kPriority sorts by higher priority first, then like kFifo.
//
// Two shapes per job, both interned to small integer ids:
//   - the GPU shape: the allowed GPU model names, how many pods ask for how many whole GPUs,
//     and how many pods ask for a GPU share. The scheduler's O(GPUs per node) feasibility
//     check (free GPU count and free-GPU histogram, whole GPUs only) depends on nothing else,
//     so it is answered once per GPU shape, not once per job.
//   - the full shape: the allowed GPU model names and every pod's request in pod order. Placement
//     depends on nothing else, so a full shape that failed once in a cycle fails again for
//     the rest of that cycle (capacity only shrinks during a cycle).
// Jobs are stored per GPU shape, each group sorted by queue order; the global queue order is
// the merge of the groups (the scheduler merges them with a heap of group heads).
//
// Complexity: push O(pods + log n), erase O(log n). Not thread-safe (event loop thread).

#include <compare>
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/policy/scheduler_config.hpp"

namespace gantry {

// Position in the queue; smaller comes first.
struct QueueKey {
  int64_t rank = 0;    // -priority under kPriority, 0 under kFifo
  int64_t submit = 0;  // submit time, microseconds
  uint64_t seq = 0;    // enqueue order
  auto operator<=>(const QueueKey&) const = default;
};

struct QueuedJob {
  QueueKey key;
  JobId id = 0;
  const JobSpec* spec = nullptr;  // owned by the caller of Scheduler::enqueue()
  uint32_t full_shape = 0;
  bool operator<(const QueuedJob& o) const { return key < o.key; }
};

struct GpuShape {
  std::vector<std::string> gpu_models;      // JobSpec::allowed_gpu_models(); empty = any
  int share_pods = 0;                       // pods asking for a share of one GPU
  std::vector<std::pair<int, int>> counts;  // (GPUs per pod, pods), GPUs > 0, ascending
  int total_gpus = 0;
};

struct FullShape {
  std::vector<Resources> pods;  // in pod order
  // Placement constraints are part of the shape: a shape that failed placement says nothing
  // about a job with the same requests but other constraints.
  Labels node_selector;
  std::vector<Toleration> tolerations;
};

class JobQueue {
 public:
  struct Group {
    GpuShape shape;
    std::set<QueuedJob> jobs;  // queue order
  };

  explicit JobQueue(QueueOrder order) : order_(order) {}

  // Where a pushed job sits: its GPU shape group and its entry there.
  struct Handle {
    uint32_t group = 0;
    std::set<QueuedJob>::iterator job;
  };
  Handle push(JobId id, const JobSpec& spec);
  // Removes a job of group g; `it` must point into groups()[g].jobs. Returns the next job.
  std::set<QueuedJob>::iterator erase(uint32_t g, std::set<QueuedJob>::iterator it);

  size_t size() const { return size_; }
  std::vector<Group>& groups() { return groups_; }
  const std::vector<Group>& groups() const { return groups_; }
  const FullShape& full_shape(uint32_t id) const { return full_shapes_[id]; }
  size_t full_shape_count() const { return full_shapes_.size(); }

 private:
  QueueOrder order_;
  uint64_t next_seq_ = 0;
  size_t size_ = 0;
  std::vector<Group> groups_;
  std::unordered_map<std::string, uint32_t> group_ids_;
  std::vector<FullShape> full_shapes_;
  std::unordered_map<std::string, uint32_t> full_shape_ids_;
};

}  // namespace gantry
