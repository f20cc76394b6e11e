#include "engine/cluster/topology.hpp"

namespace gantry {

const char* to_string(IslandLink link) {
  switch (link) {
    case IslandLink::kNVSwitch:
      return "NVSwitch";
    case IslandLink::kNVLink:
      return "NVLink";
    case IslandLink::kPCIe:
      return "PCIe";
  }
  return "?";
}

const char* to_string(FabricKind kind) {
  switch (kind) {
    case FabricKind::kInfiniBand:
      return "InfiniBand";
    case FabricKind::kRoCE:
      return "RoCE";
    case FabricKind::kTcp:
      return "TCP";
  }
  return "?";
}

int Topology::total_gpus() const {
  int total = 0;
  for (const auto& n : nodes) total += classes[static_cast<size_t>(n.node_class)].capacity.gpus;
  return total;
}

}  // namespace gantry
