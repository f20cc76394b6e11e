#pragma once
// Loading `kind: Experiment` files into an ExperimentSpec (sim/experiment_spec.hpp).
//
//   apiVersion: gantry.dev/v1
//   kind: Experiment
//   metadata: {name: openb-fragmentation}     # description, labels optional
//   spec:
//     type: Fragmentation                     # required; the only type so far
//     seed: 1                                 # the first seed, 0..2^63-1; default 1
//     nodes: {format: openb-nodes, file: ...} # and the other fields of
//     pods: {format: openb-pods, file: ...}   # sim/fragmentation_spec_loader.hpp
//
// Until issue #9 an experiment was a Scenario with a `spec.experiment` block. That shape is
// refused with a message saying how to convert it (scenario_loader.hpp); so are its leftovers
// in an Experiment (`spec.experiment`, `spec.kind`).
//
// Errors: every problem is collected (engine/config/config_errors.hpp) and thrown together as
// InputErrors, "file:line:col: field.path: message" each, in file order. A file that cannot be
// read throws FileError. Nothing else escapes (tests/fuzz/scenario_fuzz.cpp).

#include <string>

#include "engine/config/config_errors.hpp"
#include "engine/config/envelope.hpp"
#include "sim/experiment_spec.hpp"

namespace gantry {

// Reads and loads the file at `path`; ExperimentSpec::file is `path`.
ExperimentSpec load_experiment_file(const std::string& path);

// Loads an experiment from `text`; `file_name` is used in messages and as ExperimentSpec::file.
ExperimentSpec load_experiment_text(const std::string& text, const std::string& file_name);

// The spec of a document whose envelope says kind: Experiment, every problem recorded in
// `errors` (sim/simulation_file.hpp reads the envelope to tell the kinds apart).
ExperimentSpec read_experiment(const Envelope& envelope, ConfigErrors& errors);

}  // namespace gantry
