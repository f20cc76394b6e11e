#pragma once
// `gantry validate FILE|DIR...`: checks any Gantry files and lists every error, whatever their
// kind. A file whose first document is a Scenario or an Experiment is loaded on its own as
// `gantry simulate` would (sim/simulation_file.hpp: a cluster trace it names is read too), an
// Admission file as `gantry serve --admission` would (sim/admission_file.hpp); every other
// file is a pipeline file, and those are loaded together as `gantry pipeline validate` loads
// them (pools are shared across files). A folder stands for its *.yaml and *.yml files.
//
// Valid: one "ok: FILE: Scenario NAME" (or Experiment; "ok: FILE: Admission NAME (N queues)")
// line per such file and, when pipeline files were given, "ok: N pipelines, M pools", on
// stdout; exit 0. Otherwise every
// error on stderr, one per line as "file:line:col: field: message", and exit 2. A file that
// cannot be read is a FileError, reported by run_cli() (cli.hpp; exit 2).

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "engine/core/errors.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry::cli {

void add_validate_command(CLI::App& app);

// "ok: N pipelines, M pools".
std::string describe_pipelines(const PipelineDocuments& docs);

// The end of a validation, shared with `gantry pipeline validate`: with no errors, prints the
// `ok` lines on stdout; otherwise prints every error on stderr, one per line, and throws
// CLI::RuntimeError(2) (exit 2, nothing more printed).
void report_validation(const std::vector<std::string>& ok, const std::vector<InputError>& errors);

}  // namespace gantry::cli
