#pragma once
// `gantry pipeline validate FILE...`: loads the files together (kind: Pipeline and kind: Pool
// documents, workflow/pipeline/pipeline_loader.hpp) and reports.
//
// Valid: prints "ok: N pipelines, M pools" on stdout, exit 0. Otherwise prints every error on
// stderr, one per line as "file:line:col: field: message", and exits 2 (bad input). A file that
// cannot be read is a FileError, reported by main.cpp (exit 2).

#include <CLI/CLI.hpp>

namespace gantry::cli {

// Registers `validate` under the `pipeline` subcommand group.
void add_pipeline_validate(CLI::App& pipeline);

}  // namespace gantry::cli
