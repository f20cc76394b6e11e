#pragma once
// How a scheduler is set up: queue order, queueing strategy, placement plugin and its seed.
// Parsed from a Scenario's `policy:` block (sim/scenario_loader) or from the command line.

#include <cstdint>
#include <string>

#include "engine/core/time.hpp"
#include "engine/policy/elastic/elastic_config.hpp"
#include "engine/policy/queues/admission_config.hpp"

namespace gantry {

enum class QueueOrder {
  kFifo,      // by submit time, then arrival order
  kPriority,  // higher priority first; FIFO inside a priority
};

enum class Queueing {
  kBestEffortFifo,  // a job that does not fit is skipped; later jobs may start (Kueue default)
  kStrictFifo,      // the head of the queue blocks everything behind it
};

struct SchedulerConfig {
  QueueOrder order = QueueOrder::kFifo;
  Queueing queueing = Queueing::kBestEffortFifo;
  std::string placement = "binpack";  // a name known to the placement plugin registry
  // Master seed for randomised placement plugins ("random" draws from the named stream
  // "placement.random" of RandomStreams(seed)); plugins without randomness ignore it.
  uint64_t seed = 0;
  // Requeue backoff after a failed bind: bind_backoff after the first failure, doubling per
  // consecutive failure up to bind_backoff_max (kube-scheduler's podInitialBackoffSeconds and
  // podMaxBackoffSeconds defaults).
  Duration bind_backoff = seconds(1);
  Duration bind_backoff_max = seconds(10);
  // Queues, quotas, preemption and fair sharing (off when it has no queues): jobs wait in
  // their JobSpec::queue and are admitted by its rules before placement.
  AdmissionConfig admission;
  // Resizing running elastic jobs on the scheduler's own initiative (off by default;
  // scheduler.hpp, "Elasticity policies").
  ElasticityConfig elasticity;
};

}  // namespace gantry
