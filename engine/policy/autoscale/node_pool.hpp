#pragma once
// A node pool: nodes of one node class that an autoscaler adds and removes at run time, with the
// delay a cloud takes to provision one, its price, and for spot capacity the process by which
// the provider takes nodes back. Plain data shared by the autoscaler (cluster_autoscaler.hpp),
// the cost meter (pool_cost_meter.hpp) and the world that carries the decisions out.
//
// Follows Kubernetes Cluster Autoscaler's node groups (min and max size, a template node of one
// shape) and Karpenter's capacity types (`karpenter.sh/capacity-type: spot | on-demand`).
//
// Spot reclaims. A spot node is taken back after an exponentially distributed time counted from
// the moment it is up (a memoryless process per node: the provider's decision does not depend on
// the node's age), with a notice before the reclaim. Defaults and sources:
//   - notice 2 minutes: AWS's EC2 Spot Instance interruption notice ("a two-minute warning",
//     https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html).
//     GCP's Spot VMs get 30 seconds (preemption notice, "ACPI G2 Soft Off signal ... 30 seconds",
//     https://cloud.google.com/compute/docs/instances/spot); Azure's Spot VMs also 30 s
//     (Scheduled Events). kGcpSpotNotice is there to write the GCP case.
//   - no default mean time to reclaim: providers publish none that holds across regions and
//     instance types (AWS's Spot Instance Advisor gives bands of monthly interruption
//     frequency), so a spot pool must state its own.
// A reclaim that the exponential draw puts less than `notice` after the node is up gets its
// notice at the instant the node is up (a node is never warned before it exists).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/node_labels.hpp"
#include "engine/cluster/topology.hpp"
#include "engine/core/random.hpp"
#include "engine/core/time.hpp"

namespace gantry {

enum class CapacityType : uint8_t { kOnDemand, kSpot };
// "on-demand", "spot" (Karpenter's values).
const char* to_string(CapacityType c);

inline constexpr Duration kAwsSpotNotice = minutes(2);
inline constexpr Duration kGcpSpotNotice = seconds(30);

// How long a requested node takes until it is up (cloud provisioning, boot, join).
struct DelayDistribution {
  enum class Kind : uint8_t {
    kFixed,      // always `fixed`
    kUniform,    // uniform in [low, high], to the microsecond
    kLogNormal,  // log-normal with median `median` and 90th percentile `p90` (p90 >= median > 0)
  };
  Kind kind = Kind::kFixed;
  Duration fixed{};
  Duration low{}, high{};
  Duration median{}, p90{};

  static DelayDistribution constant(Duration d);
  static DelayDistribution uniform(Duration low, Duration high);
  static DelayDistribution lognormal(Duration median, Duration p90);

  // One draw. kFixed consumes no randomness; kUniform one uniform_int; kLogNormal one normal()
  // (two uniforms), rounded to the microsecond. Never negative.
  Duration draw(RandomStream& rng) const;
};

struct SpotReclaim {
  Duration mean_time_to_reclaim{};  // > 0: the exponential's mean, per node, from node up
  Duration notice = kAwsSpotNotice;
};

struct NodePoolSpec {
  std::string name;        // unique among the pools
  int32_t node_class = 0;  // index into Topology::classes
  RackId rack = 0;         // the rack new nodes join
  Labels labels{};         // what every node of the pool carries (nodeSelector matches these)
  std::vector<Taint> taints{};
  int min_nodes = 0;      // the autoscaler never goes below (nodes up + being provisioned)
  int max_nodes = 0;      // ... nor above
  int initial_nodes = 0;  // nodes up at the start, min <= initial <= max
  DelayDistribution provisioning;
  double price_per_hour = 0;  // per node-hour, currency-agnostic (USD, say); 0: no cost figure
  CapacityType capacity = CapacityType::kOnDemand;
  SpotReclaim reclaim{};  // spot pools only

  bool spot() const { return capacity == CapacityType::kSpot; }
};

// One node's life as drawn when it is requested.
struct NodeDraw {
  Time up;                      // requested + provisioning delay (saturating)
  std::optional<Time> notice;   // spot: max(up, reclaim − notice)
  std::optional<Time> reclaim;  // spot: up + Exp(mean_time_to_reclaim) (saturating)
};

// Draws one node of `pool` requested at `requested`: first the provisioning delay, then (spot
// pools only) the time to reclaim, in that order from `rng`, so an on-demand pool's draws are a
// prefix of what the same pool as spot would draw.
NodeDraw draw_node(const NodePoolSpec& pool, Time requested, RandomStream& rng);

// Labels every node of a pool carries besides the pool's own, so jobs can select pools and
// capacity types (as Karpenter's karpenter.sh/capacity-type does).
inline constexpr const char* kNodePoolLabel = "gantry.dev/node-pool";
inline constexpr const char* kCapacityTypeLabel = "gantry.dev/capacity-type";
// A pool node's labels: the pool's, plus kNodePoolLabel = its name and kCapacityTypeLabel =
// "spot" or "on-demand".
Labels pool_node_labels(const NodePoolSpec& pool);

}  // namespace gantry
