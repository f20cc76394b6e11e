#pragma once
// A Scenario as loaded from YAML (kind: Scenario): the cluster, the workload, the policy, the
// horizon and the seed. Plain data; sim/scenario_loader fills it, sim/simulation runs it.
// (Experiments, run many times over on trace inputs, are a kind of their own:
// sim/experiment_spec.hpp.)

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/job.hpp"
#include "engine/cluster/service_spec.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/core/time.hpp"
#include "engine/policy/scheduler_config.hpp"
#include "sim/fault_event.hpp"
#include "sim/fault_spec.hpp"
#include "sim/node_pool_loader.hpp"
#include "sim/trace_loaders.hpp"

namespace gantry {

// An inclusive range drawn uniformly (integers) or fixed when min == max; or, with a mean,
// exponential with that mean (steps: {mean: N}, for queueing models: M/M/c service times),
// rounded to a whole number within [min, max] = [1, 50 × mean] (e^-50 of the draws are capped).
struct IntRange {
  int64_t min = 0;
  int64_t max = 0;
  int64_t mean = 0;  // > 0: exponential
};

// One entry of a generator's job-size mix.
struct JobClass {
  double weight = 1;     // relative frequency
  int gpus = 1;          // total GPUs of the job
  int gpus_per_pod = 1;  // the job has gpus / gpus_per_pod worker pods
  Framework framework = Framework::kPyTorch;
  IntRange steps{1000, 1000};
  Duration step_compute_ref = Duration(200'000);  // per step on the reference GPU
  int64_t gradient_bytes = 0;
  int64_t input_bytes_per_step = 0;
  int64_t cpu_milli_per_gpu = 8000;
  int64_t memory_bytes_per_gpu = 64ll << 30;
  int priority = 0;
  std::string tenant = "default";
  std::string gpu_type;       // empty: any
  std::string queue;          // the admission queue of its jobs (JobSpec::queue); empty: none
  Duration checkpoint_every;  // TrainingWork::checkpoint_every of its jobs (0: never)
  Duration checkpoint_cost;   // TrainingWork::checkpoint_cost of its jobs
  ElasticSpec elastic;        // JobSpec::elastic of its jobs (on their Worker role)
  RestartPolicy restart_policy = RestartPolicy::kOnFailure;
};

// Poisson arrivals: exponential inter-arrival times with the given mean, `count` jobs starting
// at `start` (an offset from the scenario start), each drawn from `mix` by weight.
struct PoissonGeneratorSpec {
  std::string name;  // job names are "<name>-<index>"
  int64_t count = 0;
  Duration mean_interarrival = Duration(60'000'000);
  Duration start;  // offset from the scenario start
  std::vector<JobClass> mix;
};

struct WorkloadSpec {
  std::vector<JobSpec> jobs;  // explicit list; submit times are absolute
  std::vector<PoissonGeneratorSpec> generators;
  // Inference services (sim/serving/service_loader.hpp); their start is an offset from the
  // scenario's start.
  std::vector<ServiceSpec> services;
};

struct SimParameters {
  // Time from bind to a pod reported running. Default 5 s: the Kubernetes SIG Scalability
  // pod-startup SLO (p99 ≤ 5 s for stateless pods with pre-pulled images).
  Duration pod_startup = Duration(5'000'000);
  // From a failure that kills a job (sim/fault_event.hpp) to the moment it may be placed again:
  // detection, teardown and rescheduling (loading the checkpoint is part of the pods' start).
  // Default 0, so a scenario about failures says what it assumes.
  Duration restart_delay;
  // The length of a service's report intervals (sim/serving/service_report.hpp): the rows of
  // its latency and replica plots. Default 5 min.
  Duration service_report_interval = minutes(5);
};

struct ScenarioSpec {
  std::string name;
  std::string file;  // where it was loaded from, for messages
  uint64_t seed = 1;
  Time start;                       // the instant the simulation starts
  std::optional<Duration> horizon;  // absent: run until every job has finished
  Topology topology;
  WorkloadSpec workload;
  SchedulerConfig policy;
  SimParameters sim;
  FaultSpec failures;           // spec.failures: none by default
  AutoscalingSpec autoscaling;  // spec.autoscaling: no node pools by default
  // The rows of each service's request trace, in workload.services' order (nullptr for a load
  // that is not a trace), read with the scenario (sim/trace_loaders.hpp). Empty when the
  // scenario has no services, or was built in code and names no trace.
  std::vector<RequestTrace> service_traces;
  // Faults injected by hand (`gantry simulate --events`; not a key of the file), sorted by time.
  std::vector<FaultEvent> injected_faults;
};

}  // namespace gantry
