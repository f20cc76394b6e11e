#include "tools/gantry/pipeline_validate_command.hpp"

#include <memory>
#include <string>
#include <vector>

#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/validate_command.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"

namespace gantry::cli {

namespace {

void run_pipeline_validate(const std::vector<std::string>& files) {
  try {
    report_validation({describe_pipelines(load_pipelines(expand_pipeline_args(files)))}, {});
  } catch (const PipelineErrors& e) {
    report_validation({}, e.errors());
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
  cmd->footer("Example: gantry pipeline validate scenarios/pipelines/");
  cmd->callback([files] { run_pipeline_validate(*files); });
}

}  // namespace gantry::cli
