#include "tools/gantry/pipeline_validate_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/gantry/cli_inputs.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"

namespace gantry::cli {

namespace {

void run_validate(const std::vector<std::string>& files) {
  try {
    const PipelineDocuments docs = load_pipelines(expand_pipeline_args(files));
    fmt::print("ok: {} pipeline{}, {} pool{}\n", docs.pipelines.size(),
               docs.pipelines.size() == 1 ? "" : "s", docs.pools.size(),
               docs.pools.size() == 1 ? "" : "s");
  } catch (const PipelineErrors& e) {
    // Every error, not just the first: that is the point of validating.
    for (const InputError& error : e.errors()) fmt::print(stderr, "{}\n", error.what());
    // Exit 2 without a further message (CLI11 prints nothing for a RuntimeError).
    throw CLI::RuntimeError(2);
  }
}

}  // namespace

void add_pipeline_validate(CLI::App& pipeline) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = pipeline.add_subcommand(
      "validate", "Check pipeline files (kind: Pipeline, kind: Pool) and list every error");
  // No CLI::ExistingFile check: an unreadable file is a FileError, bad input (exit 2).
  cmd->add_option("files", *files,
                  "Pipeline YAML files, loaded together; a folder stands for its *.yaml and "
                  "*.yml files")
      ->required();
  cmd->callback([files] { run_validate(*files); });
}

}  // namespace gantry::cli
