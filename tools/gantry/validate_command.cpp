#include "tools/gantry/validate_command.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "sim/admission_file.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/plan/plan_variant.hpp"
#include "sim/serving/service_file.hpp"
#include "sim/simulation_file.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_variants.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/manual_links.hpp"

namespace gantry::cli {

namespace {

// The kind of the file's first document when it is one this command reads on its own
// (Scenario, Experiment, Admission, InferenceService, Sweep, Plan); "" for anything else. A file
// that does not parse is left to the pipeline loader, which reports its syntax error like any
// other.
std::string own_kind(const std::string& text, const std::string& file) {
  const std::string k = first_document_kind(text, file);
  return k == "Scenario" || k == "Experiment" || k == "Admission" || k == "InferenceService" ||
                 k == "Sweep" || k == "Plan"
             ? k
             : std::string();
}

// The errors of one load, or none.
template <typename F>
std::vector<InputError> errors_of(F&& load) {
  try {
    load();
  } catch (const InputErrors& e) {
    return e.errors();
  } catch (const InputError& e) {
    return {e};
  }
  return {};
}

void run_validate(const std::vector<std::string>& args) {
  std::vector<std::string> pipeline_files;
  std::vector<std::string> ok;
  std::vector<InputError> errors;
  for (const std::string& file : expand_pipeline_args(args)) {
    const std::string kind = own_kind(read_text_file(file), file);
    if (kind.empty()) {
      pipeline_files.push_back(file);
      continue;
    }
    const std::vector<InputError> found = errors_of([&] {
      if (kind == "Admission") {
        const AdmissionFile a = load_admission_file(file);
        const size_t n = a.admission.queues.size();
        ok.push_back(
            fmt::format("ok: {}: Admission {} ({} queue{})", file, a.name, n, n == 1 ? "" : "s"));
        return;
      }
      if (kind == "InferenceService") {
        const ServiceSpec service = load_service_file(file);
        ok.push_back(fmt::format("ok: {}: InferenceService {} ({} predictor{})", file, service.name,
                                 service.predictors.size(),
                                 service.predictors.size() == 1 ? "" : "s"));
        return;
      }
      if (kind == "Sweep") {
        // Every point is built and checked as a scenario, as `gantry sweep` does before it runs.
        const SweepSpec sweep = load_sweep_file(file);
        build_sweep_variants(sweep, trace_loaders());
        ok.push_back(fmt::format("ok: {}: Sweep {} ({} points × {} seeds = {} runs)", file,
                                 sweep.name, sweep.points.size(), sweep.seeds,
                                 sweep.points.size() * static_cast<size_t>(sweep.seeds)));
        return;
      }
      if (kind == "Plan") {
        const PlanSpec plan = load_plan_file(file);
        const PlanVariants variants(plan, trace_loaders());
        ok.push_back(fmt::format("ok: {}: Plan {} ({} pool{}, {} SLO{}, {} forecast step{})", file,
                                 plan.name, plan.pools.size(), plan.pools.size() == 1 ? "" : "s",
                                 variants.slos().size(), variants.slos().size() == 1 ? "" : "s",
                                 plan.growth.size(), plan.growth.size() == 1 ? "" : "s"));
        return;
      }
      const SimulationFile loaded = load_simulation_file(file, trace_loaders());
      if (const auto* s = std::get_if<ScenarioSpec>(&loaded))
        ok.push_back(fmt::format("ok: {}: Scenario {}", file, s->name));
      else
        ok.push_back(
            fmt::format("ok: {}: Experiment {}", file, std::get<ExperimentSpec>(loaded).name));
    });
    errors.insert(errors.end(), found.begin(), found.end());
  }
  if (!pipeline_files.empty()) {
    const std::vector<InputError> found =
        errors_of([&] { ok.push_back(describe_pipelines(load_pipelines(pipeline_files))); });
    errors.insert(errors.end(), found.begin(), found.end());
  }
  report_validation(ok, errors);
}

}  // namespace

std::string describe_pipelines(const PipelineDocuments& docs) {
  return fmt::format("ok: {} pipeline{}, {} pool{}", docs.pipelines.size(),
                     docs.pipelines.size() == 1 ? "" : "s", docs.pools.size(),
                     docs.pools.size() == 1 ? "" : "s");
}

void report_validation(const std::vector<std::string>& ok, const std::vector<InputError>& errors) {
  if (errors.empty()) {
    for (const std::string& line : ok) fmt::print("{}\n", line);
    return;
  }
  // Every error, not just the first: that is the point of validating.
  for (const InputError& e : errors) fmt::print(stderr, "{}\n", e.what());
  print_manual_links(errors);
  // Exit 2 without a further message (CLI11 prints nothing for a RuntimeError).
  throw CLI::RuntimeError(2);
}

void add_validate_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("validate",
                                     "Check Gantry files of any kind (Scenario, Experiment, Sweep, "
                                     "Plan, Admission, Pipeline, Pool) and list "
                                     "every error");
  // No CLI::ExistingFile check: an unreadable file is a FileError, bad input (exit 2).
  cmd->add_option("files", *files,
                  "YAML files; pipeline files are loaded together; a folder stands for its *.yaml "
                  "and *.yml files")
      ->required();
  cmd->footer("Example: gantry validate scenarios/quickstart.yaml scenarios/pipelines/");
  cmd->callback([files] { run_validate(*files); });
}

}  // namespace gantry::cli
