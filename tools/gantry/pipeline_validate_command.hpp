#pragma once
// `gantry pipeline validate FILE|DIR...`: loads the files together (kind: Pipeline and kind:
// Pool documents, workflow/pipeline/pipeline_loader.hpp) and reports. A folder stands for the
// *.yaml and *.yml files in it; a folder without any, and a file that declares nothing (empty,
// only comments), are errors: "ok" means something was checked (cli_inputs.hpp).
//
// Valid: prints "ok: N pipelines, M pools" on stdout, exit 0. Otherwise prints every error on
// stderr, one per line as "file:line:col: field: message", and exits 2 (bad input). A file that
// cannot be read is a FileError, reported by main.cpp (exit 2).

#include <CLI/CLI.hpp>

namespace gantry::cli {

// Registers `validate` under the `pipeline` subcommand group.
void add_pipeline_validate(CLI::App& pipeline);

}  // namespace gantry::cli
