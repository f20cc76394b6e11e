#pragma once
// Loading `kind: Scenario` files into a ScenarioSpec (sim/scenario_spec.hpp).
//
// The format; tests/data/scenarios/full.yaml uses every field, minimal.yaml none of the
// optional ones:
//
//   apiVersion: gantry.dev/v1
//   kind: Scenario
//   metadata: {name: quickstart}            # description, labels optional
//   spec:
//     seed: 42                              # default 1
//     start: 2026-01-01T00:00:00Z           # default that instant; RFC 3339
//     horizon: 7d                           # absent: run until every job has finished
//     cluster:                              # required; see read_cluster
//     workload: {jobs: [...], generators: [...]}   # at least one job or generator
//     policy: {queue: Fifo|Priority, queueing: BestEffortFIFO|StrictFIFO, placement: binpack}
//     sim: {podStartup: 5s}
//
// Defaults not visible in sim/scenario_spec.hpp, with their sources, are constants at the top
// of scenario_loader.cpp: fabric latency by kind (InfiniBand 5us, RoCE 10us, TCP 50us), intra-
// node latency (NVLink 2us, PCIe 5us). A GPU block without `link` is NVSwitch when the GPU type
// has an NVLink figure and PCIe otherwise; islandSize defaults to count (NVSwitch/NVLink) or 1
// (PCIe); islandBandwidth to the type's NVLink (or PCIe) figure; pcieBandwidth to the type's.
//
// Ranges (README, "Limits and ranges"): durations 0s..36500d (latencies <= 1s, podStartup
// <= 1d), steps 1..10^12, relativeCompute 0.001..1000, data sizes <= 1Pi, node and pod CPU
// <= 1000000 and memory <= 64Ti, at most 1,000,000 jobs in a workload (explicit and
// generated), every instant (start, start + an offset, a job's compute-only end, a
// generator's start + count × meanInterarrival) on or before 9999-12-31T23:59:59.999999Z.
//
// Semantic checks, each reported at the offending field: GPU types known to the catalog (after
// spec.cluster.gpuTypes), count <= 64 and a multiple of islandSize, unique class/rack/job/
// generator names, racks naming defined classes, at least one rack, at most 100000 nodes, role
// kinds valid for the framework (PyTorch: Master, Worker; TensorFlow: PS, Chief, Worker,
// Evaluator; MPI: Launcher, Worker) with one Master/Chief/Launcher, every pod fitting some node
// class, a job's gpuType present on some node class, gpus % gpusPerPod == 0, weights > 0,
// steps >= 1, stepCompute > 0, explicit job names not of the form "<generator>-<digits>", a
// job (or a generator's job class) whose gang even the empty cluster cannot hold
// (sim/gang_fit.hpp; reported at roles, or at the class's gpus), a placement name no plugin
// has (engine/policy/plugin_registry.hpp).
//
// Errors: every problem, syntactic or semantic (unknown GPU type, gpus not a multiple of
// gpusPerPod, duplicate job names...), throws gantry::InputError naming file:line:column, the
// field path and what was expected. A file that cannot be read throws gantry::FileError.
// Nothing else escapes: the fuzz target tests/fuzz/scenario_fuzz.cpp holds the loader to that.

#include <functional>
#include <string>

#include "engine/config/reader.hpp"
#include "engine/cluster/topology.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry {

// Reads and loads the file at `path`; ScenarioSpec::file is `path`.
// Loads the cluster of `spec.cluster.trace` (a node list of a public trace). sim/ cannot read
// trace formats itself (adapters/traces depends on sim/, not the other way round), so the
// caller passes adapters/traces' load_trace_topology. Without one, a scenario that names a
// cluster trace is an InputError.
using ClusterTraceLoader = std::function<Topology(const TraceRef&)>;

ScenarioSpec load_scenario_file(const std::string& path,
                                const ClusterTraceLoader& traces = {});

// Loads a scenario from `text`; `file_name` is used in messages and as ScenarioSpec::file.
ScenarioSpec load_scenario_text(const std::string& text, const std::string& file_name,
                                const ClusterTraceLoader& traces = {});

// Reads a `cluster:` block (the shape a future `kind: Cluster` file's spec will have):
//   gpuTypes: [{name, memory, relativeCompute, nvlink, pcie, source}]  # add or override entries
//                                       # of GpuCatalog::with_defaults(); new ones need memory,
//                                       # relativeCompute and pcie
//   fabric: {kind: InfiniBand|RoCE|TCP, latency, rackOversubscription}   # required; >= 1
//   intraNodeLatency: {nvlink, pcie}
//   storage: {bandwidth}                 # required, > 0
//   nodeClasses: [{name, cpu, memory, gpu: {type, count, islandSize, link, islandBandwidth},
//                  pcieBandwidth, nic}]  # nic required with a gpu block
//   racks: [{name, class, nodes}]        # nodes "<rack>-n000", "<rack>-n001", ...
Topology read_cluster(const ConfigNode& cluster, const ClusterTraceLoader& traces = {});

}  // namespace gantry
