#include "adapters/kube/world/unplaced_reason.hpp"

namespace gantry::kube {

namespace {

// In LiveCluster::NodeBar's order (kNone aside): index = the enum's value - 1.
constexpr std::string_view kLiveCauses[] = {"without a Node object", "not ready",
                                            "with allocatable unlike their class", "cordoned"};

}  // namespace

std::span<const std::string_view> LiveNodeBars::causes() const { return kLiveCauses; }

int LiveNodeBars::bar(NodeId n) const {
  switch (live_.bar(n)) {
    case LiveCluster::NodeBar::kNone:
      return -1;
    case LiveCluster::NodeBar::kAbsent:
      return 0;
    case LiveCluster::NodeBar::kNotReady:
      return 1;
    case LiveCluster::NodeBar::kAllocatableUnlike:
      return 2;
    case LiveCluster::NodeBar::kCordoned:
      return 3;
  }
  return -1;
}

std::string unplaced_reason(const LiveCluster& live, const JobSpec& gang) {
  return explain_unplaced(live.cluster(), gang, LiveNodeBars(live)).text;
}

}  // namespace gantry::kube
