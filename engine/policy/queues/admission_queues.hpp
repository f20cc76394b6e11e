#pragma once
// AdmissionQueues: the Scheduler's state for multi-tenant admission (SchedulerConfig::admission):
// the quota book, every queue's pending and admitted workloads, what a cycle may skip, the
// waitForPodsReady deadlines and the usage meter. The Scheduler's admission cycle
// (engine/policy/scheduler_admission.cpp) is the only writer.
//
// Skipping (what keeps a cycle cheap with thousands of queues): a queue whose walk admitted
// nothing and started no preemption is parked with the versions it saw: its cohort's release
// version, and — if a workload of it passed quota but found no nodes — the scheduler's count of
// releases in the cluster. It is walked again only when one of those changes or a workload
// joins it. A workload's failed preemption search is remembered the same way.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/core/time.hpp"
#include "engine/policy/job_queue.hpp"
#include "engine/policy/queues/admission_config.hpp"
#include "engine/policy/queues/queue_usage_meter.hpp"
#include "engine/policy/queues/quota_book.hpp"

namespace gantry {

struct Workload;

struct AdmissionQueues {
  AdmissionQueues(AdmissionConfig config_in, Time start)
      : config(std::move(config_in)),
        book(config),
        meter(book, start,
              config.admission_fair_sharing ? config.admission_fair_sharing->usage_half_life
                                            : Duration(0)),
        queues(config.queues.size()),
        cohort_version(book.cohort_count(), 0) {}

  const AdmissionConfig config;
  QuotaBook book;
  QueueUsageMeter meter;

  struct Queue {
    std::map<QueueKey, Workload*> pending;  // priority, then submission, then arrival
    std::map<JobId, Workload*> admitted;    // placed workloads holding its quota
    bool parked = false;
    bool parked_on_cluster = false;  // a workload passed quota but found no nodes
    uint64_t parked_cohort_version = 0;
    uint64_t parked_cluster_version = 0;
  };
  std::vector<Queue> queues;
  // Bumped when the cohort's usage goes down (a workload leaves, a reservation ends): what may
  // let a parked workload in. An admission does not wake parked queues, as in Kueue, whose
  // inadmissible workloads wait for a workload of their cohort to finish or leave.
  std::vector<uint64_t> cohort_version;
  uint64_t next_seq = 0;
  size_t pending = 0;  // over all queues
  // Preemptors whose victims have all left, in queue order: the next cycle tries them before
  // any other workload, so what their victims freed is not taken by someone else first (which
  // would make them preempt again: kube-scheduler's nominated node, for whole gangs).
  std::set<std::pair<QueueKey, JobId>> nominated;
  // waitForPodsReady: admitted workloads not running yet, by deadline (then id).
  std::set<std::pair<Time, JobId>> ready_deadlines;
};

}  // namespace gantry
