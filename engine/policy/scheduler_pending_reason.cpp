// Scheduler::pending_reason(): why a pending workload waits (scheduler.hpp; issue #26 §5). Asked
// for by the cluster queue's readers, not worked out in every cycle: the cycles stay as fast as
// they were, and the words reflect the cluster as it is when asked.

#include <fmt/format.h>

#include <algorithm>

#include "engine/policy/scheduler.hpp"

namespace gantry {

std::string Scheduler::pending_reason(const Cluster& cluster, JobId id,
                                      const NodeBars& bars) const {
  const Workload* w = workloads_.find(id);
  if (w == nullptr || w->state != WorkloadState::kPending) return {};
  if (w->victims_pending > 0)
    return fmt::format("waiting for {} {} to leave", w->victims_pending,
                       w->victims_pending == 1 ? "victim" : "victims");
  for (const auto& [until, job] : backoff_)
    if (job == id)
      return "backing off until " + format_rfc3339(until) +
             (w->last_reason.empty() ? "" : ": " + w->last_reason);

  if (admission_ && w->queue >= 0) {  // a workload without a queue is refused at submit
    const std::vector<Resources> pods = w->requests.empty() ? w->spec->pod_requests() : w->requests;
    bool any_quota = false;
    (void)quota_types(cluster, *w, pods, any_quota);
    if (!any_quota) {
      const GpuTypeId type = first_allowed_type(cluster, *w);
      const std::string why =
          admission_->book.why_not(w->queue, quota_usage(cluster, *w, pods, type));
      if (!why.empty()) return why;
      return "queue " + admission_->book.queue_name(w->queue) +
             " may not use the GPU models it asks for";
    }
  }

  const UnplacedReason unplaced = explain_unplaced(cluster, *w->spec, bars);
  if (!unplaced.room_for_all) return unplaced.text;
  if (admission_ && w->queue >= 0) {
    const int q = w->queue;
    const auto& queue = admission_->queues[static_cast<size_t>(q)];
    if (admission_->config.queues[static_cast<size_t>(q)].queueing ==
        QueueingStrategy::kStrictFifo) {
      const auto at = queue.pending.find(w->queue_key);
      const auto ahead = std::distance(queue.pending.begin(), at);
      if (at != queue.pending.end() && ahead > 0)
        return fmt::format("fits now; behind {} earlier {} in queue {} (StrictFIFO)", ahead,
                           ahead == 1 ? "workload" : "workloads", admission_->book.queue_name(q));
    }
  } else if (config_.queueing == Queueing::kStrictFifo) {
    return "fits now; strict FIFO holds it behind an earlier job that does not";
  }
  return "fits now: waits for the next scheduling cycle";
}

}  // namespace gantry
