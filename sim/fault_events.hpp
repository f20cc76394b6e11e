#pragma once
// The `--events EVENTS.yaml` file of `gantry simulate SCENARIO`: faults and maintenance
// injected by hand at given times, as FaultEvents (sim/fault_event.hpp) with cause "injected".
// A YAML list, in the shape of the pipeline events file (tools/gantry/operator_events.hpp):
//
//   - {at: 2026-01-02T03:00:00Z, action: node-down, node: r1-n003, for: 6h}
//   - {at: 30h, action: node-up, node: r1-n003}
//   - {at: ..., action: rack-down, rack: r2, for: 1h}     # rack-up: {rack}
//   - {at: ..., action: gpu-fail, node: r1-n003, gpu: 5, for: 12h}   # gpu-repair: {node, gpu}
//   - {at: ..., action: drain, node: r1-n004, deadline: 2h, for: 4h}
//
//   at        an RFC 3339 instant, or a duration (30h, 1d6h) meaning that long after the
//             scenario's start
//   node      a node's name (engine/cluster/topology.hpp, NodeInfo::name): node-down, node-up,
//             gpu-fail, gpu-repair, drain
//   rack      a rack's name: rack-down, rack-up
//   gpu       the GPU's index on its node, 0 to its GPUs − 1: gpu-fail, gpu-repair
//   for       node-down, rack-down, gpu-fail (optional): the part comes back by itself after
//             this long (FaultEvent::duration); absent, only a node-up, rack-up or gpu-repair
//             brings it back. drain (required): the time out of service once the node is empty
//   deadline  drain (optional, default 0s: evicted at once): how long running jobs may go on
//
// Every problem is an InputError naming file, line, column and field: unknown actions, fields
// an action does not take or lacks, unknown nodes and racks, a GPU index out of the node's
// range, times before the scenario starts. All are collected and thrown together as
// InputErrors (engine/config/config_errors.hpp), in file order.
//
// Events after the scenario's end (`scenario_end`, when the scenario has a horizon) are not
// errors, as in the pipeline events file: each is left out and reported in `skipped` (when
// given) as an InputError naming file, line, column and field, for the caller to print as a
// warning. An event exactly at the end is kept (the event loop runs events at its horizon).
//
// The result is sorted by time; events at one instant keep the file's order.

#include <optional>
#include <string>
#include <vector>

#include "engine/cluster/topology.hpp"
#include "engine/core/errors.hpp"
#include "engine/core/time.hpp"
#include "sim/fault_event.hpp"

namespace gantry {

std::vector<FaultEvent> load_fault_events_text(const std::string& text,
                                               const std::string& file_name,
                                               const Topology& topology, Time scenario_start,
                                               std::optional<Time> scenario_end,
                                               std::vector<InputError>* skipped = nullptr);

// The same for a file; FileError when it cannot be read.
std::vector<FaultEvent> load_fault_events(const std::string& path, const Topology& topology,
                                          Time scenario_start, std::optional<Time> scenario_end,
                                          std::vector<InputError>* skipped = nullptr);

}  // namespace gantry
