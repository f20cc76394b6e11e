#pragma once
// Choosing GPUs inside one node with its NVLink/NVSwitch islands in mind.
//
// A node of class c has c.islands() islands of c.island_size GPUs: GPUs [i*s, (i+1)*s) form
// island i. GPUs of one island talk over NVLink; between islands traffic crosses PCIe, so a
// pod whose GPUs sit in one island trains faster, and leaving whole islands free keeps room
// for the next large pod. A node with island_size 0 (or one island) is a single island.

#include <cstdint>

#include "engine/cluster/cluster.hpp"

namespace gantry {

// Fewest islands of node n whose free GPUs together hold `gpus` GPUs (1 for a node without
// islands); 0 for gpus == 0; a large number (capacity + 1) if the node has fewer free GPUs.
int islands_needed(const Cluster& cluster, NodeId n, int gpus);

// `gpus` free GPUs of node n spread over islands_needed() islands, as a mask; 0 if fewer are
// free. Island best fit: when one island suffices, the island with the fewest free GPUs that
// still fits (ties to the lowest island), and its lowest-numbered free GPUs. Otherwise the
// islands with the most free GPUs are filled completely, and the remainder goes to the
// best-fitting island among the others.
uint64_t island_best_fit_gpus(const Cluster& cluster, NodeId n, int gpus);

}  // namespace gantry
