#include "tools/gantry/simulate_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/core/errors.hpp"
#include "engine/policy/scheduler.hpp"
#include "engine/store/replacement_file.hpp"
#include "sim/fault_events.hpp"
#include "sim/json_report.hpp"
#include "sim/queue_summary.hpp"
#include "sim/results_export.hpp"
#include "sim/results_stream.hpp"
#include "sim/simulation.hpp"
#include "sim/simulation_file.hpp"
#include "sim/summary.hpp"
#include "tools/gantry/action_log_file.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/experiment_command.hpp"
#include "tools/gantry/progress_bar.hpp"
#include "tools/gantry/serving_report.hpp"
#include "tools/gantry/simulate_options.hpp"
#include "tools/gantry/text_report.hpp"

namespace gantry::cli {

namespace {

void check_policy_name(const std::string& name) {
  const auto known = placement_plugin_names();
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  throw GantryError(fmt::format("--policy: unknown placement policy '{}'; known: {}", name,
                                fmt::join(known, ", ")));
}

void run_simulate(const SimulateOptions& opt) {
  if (opt.jobs && opt.format != "json")
    throw GantryError("--jobs: the job list is part of the JSON report; add --format json");
  SimulationFile file = load_simulation_file(opt.scenario, trace_loaders());
  if (const auto* experiment = std::get_if<ExperimentSpec>(&file)) {
    if (opt.jobs)
      throw GantryError(fmt::format(
          "--jobs: {} is an Experiment, which places pods, not jobs; --jobs is for a Scenario",
          opt.scenario));
    if (!opt.events.empty())
      throw GantryError(fmt::format(
          "--events: {} is an Experiment, which places pods once and runs no time; --events is "
          "for a Scenario",
          opt.scenario));
    run_experiment_file(*experiment, opt);
    return;
  }
  ScenarioSpec& scenario = std::get<ScenarioSpec>(file);
  if (opt.seed) scenario.seed = *opt.seed;
  if (!opt.events.empty()) {
    std::vector<InputError> skipped;
    const std::optional<Time> end =
        scenario.horizon ? std::optional<Time>(scenario.start + *scenario.horizon) : std::nullopt;
    scenario.injected_faults =
        load_fault_events(opt.events, scenario.topology, scenario.start, end, &skipped);
    for (const InputError& e : skipped) fmt::print(stderr, "warning: {}\n", e.what());
  }
  // The file's placement was checked by the loader, at its position; only the flag is new here.
  if (!opt.policy.empty()) {
    check_policy_name(opt.policy);
    scenario.policy.placement = opt.policy;
  }

  // Where the results go is checked before the simulation, not after minutes of it.
  const std::string dir = opt.out_dir.empty() ? "gantry-out/" + scenario.name : opt.out_dir;
  make_output_dir("--out", dir);
  const std::string db_path = (std::filesystem::path(dir) / "results.db").string();
  check_output_database(db_path);
  if (!opt.actions.empty()) check_action_log_path(opt.actions);

  ProgressBar bar(fmt::format("simulating {}", scenario.name), !opt.no_progress);
  std::ostringstream actions;
  // The events and the series go into the database while the run goes on (ResultsStream).
  ResultsStream stream(db_path, gpu_type_names(scenario.topology));
  SimulationRun run = run_simulation(
      scenario, [&bar](double f) { bar.update(f); }, opt.actions.empty() ? nullptr : &actions,
      &stream);
  bar.finish();
  ResultsWriter& writer = stream.finish();
  if (!opt.actions.empty()) write_file_atomically(opt.actions, actions.str());
  const RunSummary summary = summarize(run);
  const std::vector<QueueSummary> queues = summarize_queues(run.log, scenario.policy.admission);

  write_results_database(writer, scenario, run, summary, queues);
  const RunFigures figures = run_figures(scenario, run);
  const ReliabilitySummary* r = figures.reliability ? &*figures.reliability : nullptr;
  const CostSummary* c = figures.cost ? &*figures.cost : nullptr;

  // Services: their latency and replica plots beside the results database.
  std::vector<std::string> plots;
  if (!run.services.empty()) plots = write_service_plots(dir, run.services);

  if (opt.format == "json") {
    nlohmann::ordered_json report =
        json_report(scenario, summary, queues, db_path, r, c, &run.services);
    if (opt.jobs) report["job_list"] = json_jobs(run.log);
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << text_report(scenario, summary, queues, db_path, r, c, &run.services);
    for (const std::string& plot : plots) std::cout << fmt::format("  plot        {}\n", plot);
  }
}

}  // namespace

void add_simulate_command(CLI::App& app) {
  auto opt = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Run a scenario in virtual time (or an experiment's runs) and report");
  cmd->add_option("scenario", opt->scenario,
                  "Scenario or Experiment YAML file (kind: Scenario or Experiment)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--seed", opt->seed, "Override the scenario's seed (0 to 2^63-1)")
      ->check(seed_validator());
  cmd->add_option("--out", opt->out_dir,
                  "Directory for results.db (default gantry-out/<scenario name>)");
  cmd->add_option("--format", opt->format, "Report format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--policy", opt->policy,
                  "Placement policy, overriding the scenario's (binpack, spread, topology, ...); "
                  "for an experiment, the one policy to run (FGD, BestFit, ...)");
  cmd->add_option("--parallel", opt->parallel,
                  fmt::format("For an Experiment: how many of its runs go at once, 1 to {} "
                              "(default: the machine's cores; 1 runs them one after another). "
                              "The results are the same whatever the number; a Scenario is one "
                              "run",
                              kMaxParallel))
      ->check(parallel_validator());
  cmd->add_flag("--no-progress", opt->no_progress, "Never draw the progress bar");
  cmd->add_option("--actions", opt->actions,
                  "Write every action and observation between scheduler and world to FILE, "
                  "one JSON object per line");
  cmd->add_option("--events", opt->events,
                  "Inject faults and drains from FILE: a YAML list of {at, action: node-down | "
                  "node-up | rack-down | rack-up | gpu-fail | gpu-repair | drain, node, rack, gpu, "
                  "for, deadline}")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--jobs", opt->jobs,
                "With --format json: add every job (queue, admission, start, end, state, "
                "evictions) to the report as \"job_list\"");
  cmd->footer("Example: gantry simulate scenarios/quickstart.yaml --out gantry-out/quickstart");
  cmd->callback([opt] { run_simulate(*opt); });
}

}  // namespace gantry::cli
