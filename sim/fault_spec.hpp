#pragma once
// A scenario's failure model as plain data (issue #13): failure processes that break GPUs,
// nodes or racks at random, and scheduled maintenance that drains nodes. sim/fault_loader.hpp
// reads it from a Scenario's `spec.failures`; sim/fault_process.hpp draws the FaultEvents
// (sim/fault_event.hpp) it implies over a run.
//
// Node and rack ids are the cluster's (engine/cluster/topology.hpp); the loader resolves the
// names users write.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/cluster/topology.hpp"
#include "engine/core/time.hpp"

namespace gantry {

// What one failure takes out of service.
enum class FailureComponent : uint8_t {
  kGpu,   // one GPU of a node (FaultAction::kGpuFail)
  kNode,  // a whole node (FaultAction::kNodeDown)
  kRack,  // every node of a rack (FaultAction::kRackDown)
};
const char* to_string(FailureComponent component);

// The time from a unit's (re)start to its next failure.
struct TimeToFailure {
  enum class Kind : uint8_t {
    kExponential,  // memoryless; mean `mtbf`
    kWeibull,      // P(T > t) = exp(-(t/scale)^shape); shape < 1: early failures dominate,
                   // shape > 1: wear-out; shape 1 is the exponential with mean `scale`
  };
  Kind kind = Kind::kExponential;
  Duration mtbf{};   // kExponential: the mean, > 0
  double shape = 1;  // kWeibull: > 0
  Duration scale{};  // kWeibull: > 0; the mean is scale·Γ(1 + 1/shape) (weibull_mean)
};

// How long a failed unit stays out of service.
struct RepairTime {
  enum class Kind : uint8_t {
    kFixed,        // exactly `mean`
    kExponential,  // exponential with mean `mean`
  };
  Kind kind = Kind::kFixed;
  Duration mean{};  // > 0: a FaultEvent's duration of 0 would mean "never comes back"
};

// One renewal process, run independently for every unit it applies to: a unit fails after a
// TimeToFailure draw, stays down for a RepairTime draw, and the next failure is drawn from the
// end of the repair (a part cannot fail while it is down). Every unit is new at the scenario's
// start (age 0) and as good as new after a repair, which matters only for Weibull shapes other
// than 1.
struct FailureProcessSpec {
  FailureComponent component = FailureComponent::kNode;
  // Which units: empty = every GPU / node / rack. Otherwise the GPU model of the nodes it
  // applies to (gpu_model_matches): a GPU process breaks the GPUs of those nodes, a node
  // process those nodes, a rack process the racks holding at least one of them.
  std::string gpu_model;
  TimeToFailure time_to_failure;
  RepairTime repair;
  // The FaultEvents' cause, which reports group lost work by ("GPU", "node", "HBM3", ...).
  std::string cause;
};

// Scheduled maintenance: nodes drained (cordoned; running jobs get `deadline` to end, then the
// rest is evicted), kept out of service for `duration` once empty, then put back.
//
// Rolling: the nodes are taken in order (`all`: every node by id; a rack: its nodes by id; a
// list: as listed), `concurrent` at a time. Period k starts at
//   scenario start + start + k·every            (k = 0 only when `every` is absent)
// and within it node i (0-based in that order) is drained at
//   period start + (i / concurrent)·(deadline + duration)     (integer division)
// deadline + duration bounds the time one batch needs (a node is empty by its deadline), so
// batches never overlap; the loader refuses an `every` shorter than a whole round.
struct MaintenanceSpec {
  enum class Target : uint8_t { kAll, kRack, kNodes };
  Target target = Target::kAll;
  RackId rack = -1;               // kRack
  std::vector<NodeId> nodes;      // kNodes, in drain order
  Duration start{};               // offset of the first round from the scenario's start
  std::optional<Duration> every;  // absent: once
  Duration deadline{};            // 0: jobs are evicted at once
  Duration duration{};            // > 0
  int concurrent = 0;             // nodes drained at a time; 0: all of them at once
  std::string cause = "maintenance";
};

struct FaultSpec {
  std::vector<FailureProcessSpec> processes;
  std::vector<MaintenanceSpec> maintenance;

  bool empty() const { return processes.empty() && maintenance.empty(); }
};

// Whether a process's `gpu_model` applies to a node's GPU model `model`: compared
// case-insensitively, equal or a prefix that ends where a word of `model` ends ("H100" applies
// to "H100", "h100-80g" and "H100-SXM5-80GB", not to "H1000" or "H800"). An empty pattern
// applies to every model and to nodes without GPUs (`model` empty); a non-empty one never to
// the latter.
bool gpu_model_matches(std::string_view pattern, std::string_view model);

// The mean of a Weibull distribution, scale·Γ(1 + 1/shape), and the scale giving `mean`.
Duration weibull_mean(double shape, Duration scale);
Duration weibull_scale_for_mean(double shape, Duration mean);

// ---- the Llama 3 preset ----
//
// Source: "The Llama 3 Herd of Models" (Dubey et al., arXiv:2407.21783, 2024), §3.3.4 and
// Table 5: 419 unexpected interruptions in a 54-day snapshot of pre-training on 16,384 H100
// GPUs (2,048 nodes of 8); 58.7 % of them GPU issues (faulty GPU 30.1, HBM3 memory 17.2,
// SRAM 4.5, GPU system processor 4.1, silent data corruption 1.4, thermal interface + sensor
// 1.4 — summing to 58.7), the other 41.3 % host, network and software issues.
//
// Treating the interruptions as Poisson processes spread evenly over the units:
//   GPU:  0.587 × 419 = 245.953 failures over 54 d × 16,384 GPUs = 884,736 GPU-days
//         MTBF = 884,736 / 245.953 = 3,597.175 d per GPU (about 9.85 years)
//   node: 0.413 × 419 = 173.047 failures over 54 d × 2,048 nodes = 110,592 node-days
//         MTBF = 110,592 / 173.047 = 639.086 d per node (about 1.75 years)
//
// Repair times are not in the paper; these are assumptions, to be overridden by a scenario
// that knows better:
//   GPU:  exponential, mean 6 h — reset, diagnostics and, for a hardware fault, a swap of the
//         GPU or its board, with the part out of service meanwhile;
//   node: exponential, mean 2 h — a reboot or a host, NIC or software fix.
inline constexpr int64_t kLlama3Interruptions = 419;
inline constexpr int64_t kLlama3Days = 54;
inline constexpr int64_t kLlama3Gpus = 16'384;
inline constexpr int64_t kLlama3Nodes = 2'048;
inline constexpr double kLlama3GpuShare = 0.587;
inline constexpr std::string_view kLlama3GpuModel = "H100";
inline constexpr Duration kLlama3GpuRepair = hours(6);   // assumption, see above
inline constexpr Duration kLlama3NodeRepair = hours(2);  // assumption, see above

// The two processes above, GPU first, both for GPU model "H100", causes "GPU" and "node".
std::vector<FailureProcessSpec> llama3_h100_processes();

}  // namespace gantry
