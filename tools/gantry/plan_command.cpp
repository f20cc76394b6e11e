#include "tools/gantry/plan_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/core/errors.hpp"
#include "engine/store/replacement_file.hpp"
#include "report/plan_report.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/plan/plan_run.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/plan_on_kubernetes.hpp"
#include "tools/gantry/progress_bar.hpp"

namespace gantry::cli {

namespace {

struct PlanOptions {
  std::string file;
  std::string out_dir;  // default gantry-out/<plan name>
  std::string format = "text";
  unsigned parallel = 0;
  bool no_progress = false;
  std::string on = "local";  // or "kubernetes"
  KubeSweepOptions kube;
};

// On this machine's cores, with a bar over the forecast steps.
PlanRun run_plan_locally(const PlanSpec& plan, const PlanVariants& variants,
                         const PlanOptions& opt) {
  ProgressBar bar(fmt::format("plan {}: {} forecast step{}", plan.name, plan.growth.size(),
                              plan.growth.size() == 1 ? "" : "s"),
                  !opt.no_progress);
  bar.update(0);
  PlanRun run = run_plan(plan, variants, threads_for(opt.parallel), [&](size_t step) {
    bar.update(static_cast<double>(step + 1) / static_cast<double>(plan.growth.size()));
  });
  bar.finish();
  return run;
}

void run_plan_command(const PlanOptions& opt) {
  const bool on_kubernetes = opt.on == "kubernetes";
  if (on_kubernetes) {
    require_image(opt.kube);
    if (opt.kube.detach)
      throw GantryError(
          "--detach: a plan cannot return before its end: each round of its search is a Job "
          "whose figures choose the next round's configurations (a single sweep can: gantry "
          "sweep --on kubernetes --detach)");
  }
  const PlanSpec plan = load_plan_file(opt.file);
  const PlanVariants variants(plan, trace_loaders());
  if (on_kubernetes && opt.kube.dry_run) {
    try {
      run_plan(plan, variants, kube_plan_runner(plan, variants, opt.kube, nullptr, true));
    } catch (const PlanDryRunPrinted&) {
    }
    return;
  }
  const std::string dir = opt.out_dir.empty() ? "gantry-out/" + plan.name : opt.out_dir;
  make_output_dir("--out", dir);

  std::unique_ptr<KubeSweepSession> session;
  if (on_kubernetes) session = std::make_unique<KubeSweepSession>(opt.kube);
  // Each round on Kubernetes draws its own bar (the Job's runs).
  const PlanRun run =
      on_kubernetes
          ? run_plan(plan, variants,
                     kube_plan_runner(plan, variants, opt.kube, session.get(), opt.no_progress))
          : run_plan_locally(plan, variants, opt);
  const std::vector<std::string>& metrics = run.evaluators.front()->metrics();
  const std::string chart = (std::filesystem::path(dir) / "frontier.svg").string();
  write_file_atomically(chart, plan_frontier_svg(plan, variants.slos(), metrics, run.result));
  if (opt.format == "json") {
    nlohmann::ordered_json report = plan_json(plan, variants.slos(), metrics, run.result);
    report["chart"] = chart;
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::cout << plan_text_report(plan, variants.slos(), metrics, run.result);
  std::cout << fmt::format("  plot        {}\n", chart);
}

}  // namespace

void add_plan_command(CLI::App& app) {
  auto opt = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan",
      "Find the cheapest pool sizes whose simulated SLOs hold (kind: Plan), per forecast step");
  cmd->add_option("plan", opt->file, "Plan YAML file (kind: Plan)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", opt->out_dir,
                  "Directory for the frontier chart (default gantry-out/<plan name>)");
  cmd->add_option("--format", opt->format, "Report format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--parallel", opt->parallel,
                  fmt::format("Simulations at once, 1 to {} (default: the machine's cores); the "
                              "answer is the same whatever the number",
                              kMaxParallel))
      ->check(parallel_validator());
  cmd->add_flag("--no-progress", opt->no_progress, "Never draw the progress bar");
  cmd->add_option("--on", opt->on,
                  "Where the simulations go: this machine's cores, or one Kubernetes Indexed Job "
                  "per round of the search, coordinated by gantry serve (README, \"Sweeps on "
                  "Kubernetes\"); the answer is the same")
      ->check(CLI::IsMember({"local", "kubernetes"}));
  add_kube_sweep_flags(cmd, opt->kube,
                       "Refused: the search needs each round's figures (gantry sweep has it)");
  cmd->footer("Example: gantry plan scenarios/plans/next-year.yaml --parallel 2");
  cmd->callback([opt] { run_plan_command(*opt); });
}

}  // namespace gantry::cli
