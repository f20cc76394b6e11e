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
//     cluster:                              # required; sim/cluster_loader.hpp
//     workload: {jobs: [...], generators: [...], services: [...]}   # required;
//                                           # sim/workload_loader.hpp (services:
//                                           # sim/serving/service_loader.hpp)
//     policy: {queue: Fifo|Priority, queueing: BestEffortFIFO|StrictFIFO, placement: binpack,
//              admission: {queues: [...], ...}}   # admission: sim/admission_loader.hpp
//     sim: {podStartup: 5s}
//
// A fragmentation experiment is a file of its own kind (kind: Experiment,
// sim/experiment_loader.hpp). A Scenario with the `spec.experiment` block experiments used to
// have is refused at that block: "spec.experiment: an experiment is a file of its own kind:
// write kind: Experiment ...".
//
// Ranges (README, "Limits and ranges"): durations 0s..36500d (latencies <= 1s, podStartup
// <= 1d), steps 1..10^12, relativeCompute 0.001..1000, data sizes <= 1Pi, node and pod CPU
// <= 1000000 and memory <= 64Ti, at most 1,000,000 jobs in a workload (explicit and
// generated), every instant (start, start + an offset, a job's compute-only end, a
// generator's start + count × meanInterarrival) on or before 9999-12-31T23:59:59.999999Z.
// Semantic checks: those of the cluster, the admission and the workload loaders, and a
// placement name no plugin has (engine/policy/plugin_registry.hpp). With admission queues,
// `queue: Fifo` is an error (each queue orders by priority, then submission, as Kueue does) and
// the scheduler's order is Priority; every job then names one of the queues, and without them
// none may. The policy is read before the workload, so these checks do not depend on which
// block comes first in the file. So are the node pools (spec.autoscaling): whether a gang could
// ever start counts each pool at its maximum size, so a cluster whose GPU nodes all come from
// pools loads.
//
// Errors: every problem, syntactic or semantic (unknown GPU type, gpus not a multiple of
// gpusPerPod, duplicate job names...), is collected (engine/config/config_errors.hpp) and
// thrown together as InputErrors, one "file:line:column: field.path: message" each, in file
// order. A file that cannot be read throws gantry::FileError. Nothing else escapes: the fuzz
// target tests/fuzz/scenario_fuzz.cpp holds the loader to that.

#include <string>

#include "engine/config/config_errors.hpp"
#include "engine/config/envelope.hpp"
#include "sim/cluster_loader.hpp"
#include "sim/scenario_spec.hpp"

namespace gantry {

// Reads and loads the file at `path`; ScenarioSpec::file is `path`. `traces` reads the public
// traces the scenario names: its cluster's node list, its services' request traces
// (sim/trace_loaders.hpp; without a reader, naming one is an error at its field).
ScenarioSpec load_scenario_file(const std::string& path, const TraceLoaders& traces = {});

// Loads a scenario from `text`; `file_name` is used in messages and as ScenarioSpec::file.
ScenarioSpec load_scenario_text(const std::string& text, const std::string& file_name,
                                const TraceLoaders& traces = {});

// The spec of a document whose envelope says kind: Scenario, every problem recorded in
// `errors` (sim/simulation_file.hpp reads the envelope to tell the kinds apart).
ScenarioSpec read_scenario(const Envelope& envelope, const TraceLoaders& traces,
                           ConfigErrors& errors);

}  // namespace gantry
