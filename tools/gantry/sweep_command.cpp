#include "tools/gantry/sweep_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/config/reader.hpp"
#include "engine/store/replacement_file.hpp"
#include "report/sweep_report.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_store.hpp"
#include "sim/sweep/sweep_summary.hpp"
#include "sim/sweep/sweep_variants.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/progress_bar.hpp"
#include "tools/gantry/sweep_on_kubernetes.hpp"

namespace gantry::cli {

namespace {

struct SweepOptions {
  std::string file;
  std::string out_dir;  // default gantry-out/<sweep name>
  std::string format = "text";
  unsigned parallel = 0;
  bool resume = false;
  bool no_progress = false;
  SweepStore::CommitHook commit_hook;  // CliHooks::runs_commit
  std::string on = "local";            // or "kubernetes"
  KubeSweepOptions kube;
};

void run_sweep_command(const SweepOptions& opt) {
  const std::string sweep_text = read_text_file(opt.file);
  const SweepSpec sweep = load_sweep_text(sweep_text, opt.file);
  // Every point is checked before anything runs or any file is touched.
  const std::vector<ScenarioSpec> variants = build_sweep_variants(sweep, trace_loaders());
  const std::string base_text = read_text_file(sweep.base);

  const std::string dir = opt.out_dir.empty() ? "gantry-out/" + sweep.name : opt.out_dir;
  make_output_dir("--out", dir);
  const std::filesystem::path folder(dir);
  SweepStore store((folder / "results.db").string(), sweep, sweep_text, base_text, opt.resume);

  if (opt.commit_hook) store.set_commit_hook(opt.commit_hook);
  SweepRunOptions run;
  run.threads = threads_for(opt.parallel);
  for (const SweepRunResult& r : store.runs()) run.done.insert({r.point, r.seed_index});
  const size_t total = sweep.points.size() * static_cast<size_t>(sweep.seeds);
  if (opt.resume && !run.done.empty())
    fmt::print(stderr, "resuming: {} of {} runs are done; running the other {}\n", run.done.size(),
               total, total - run.done.size());
  ProgressBar bar(fmt::format("sweep {}: {} runs on {} thread{}", sweep.name,
                              total - run.done.size(), run.threads, run.threads == 1 ? "" : "s"),
                  !opt.no_progress);
  run.finished = [&store](const SweepRunResult& r) { store.record(r); };
  run.progress = [&bar](size_t finished, size_t count) {
    bar.update(count == 0 ? 1.0 : static_cast<double>(finished) / static_cast<double>(count));
  };
  run_sweep(sweep, variants, run);
  bar.finish();

  const SweepSummary summary = summarize_sweep(sweep, store.runs());
  std::vector<std::string> charts;
  for (const NamedChart& chart : sweep_charts(sweep, summary)) {
    const std::string path = (folder / chart.file).string();
    write_file_atomically(path, chart.svg);
    charts.push_back(path);
  }
  if (opt.format == "json") {
    nlohmann::ordered_json report = sweep_json(sweep, summary);
    report["results"] = store.path();
    report["charts"] = charts;
    std::cout << report.dump(2) << "\n";
    return;
  }
  std::cout << sweep_text_report(sweep, summary) << "\n";
  std::cout << fmt::format("  results     {}\n", store.path());
  for (const std::string& c : charts) std::cout << fmt::format("  plot        {}\n", c);
}

}  // namespace

void add_sweep_command(CLI::App& app, const CliHooks& hooks) {
  auto opt = std::make_shared<SweepOptions>();
  opt->commit_hook = hooks.runs_commit;
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a scenario's variants (kind: Sweep) over seeds on every core, and compare");
  // Not required(): `gantry sweep cancel ID` has no file (checked in the callback instead).
  cmd->add_option("sweep", opt->file, "Sweep YAML file (kind: Sweep)")->check(CLI::ExistingFile);
  cmd->add_option("--on", opt->on,
                  "Where the runs go: this machine's cores, or a Kubernetes Indexed Job "
                  "coordinated by gantry serve (README, \"Sweeps on Kubernetes\")")
      ->check(CLI::IsMember({"local", "kubernetes"}));
  add_kube_sweep_flags(cmd, opt->kube, "Return once the Job is created, with the sweep's URL");
  add_sweep_cancel_command(cmd);
  cmd->add_option("--out", opt->out_dir,
                  "Directory for results.db and the charts (default gantry-out/<sweep name>)");
  cmd->add_option("--format", opt->format, "Report format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_option("--parallel", opt->parallel,
                  fmt::format("Runs at once, 1 to {} (default: the machine's cores); the "
                              "results are the same whatever the number",
                              kMaxParallel))
      ->check(parallel_validator());
  cmd->add_flag("--resume", opt->resume,
                "Continue the sweep whose results.db is in --out: run only the runs it does not "
                "hold (the sweep file and its base must be unchanged)");
  cmd->add_flag("--no-progress", opt->no_progress, "Never draw the progress bar");
  cmd->footer("Example: gantry sweep scenarios/sweeps/placement-vs-load.yaml --parallel 2");
  cmd->callback([opt, cmd] {
    if (!cmd->get_subcommands().empty()) return;  // `sweep cancel` ran
    if (opt->file.empty()) throw CLI::RequiredError("the Sweep file (or: gantry sweep cancel ID)");
    if (opt->on == "kubernetes") {
      run_sweep_on_kubernetes(opt->file, opt->kube, opt->format, opt->out_dir, opt->no_progress);
      return;
    }
    run_sweep_command(*opt);
  });
}

}  // namespace gantry::cli
