#include "tools/gantry/experiment_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/core/errors.hpp"
#include "engine/store/replacement_file.hpp"
#include "sim/experiment_json.hpp"
#include "sim/experiment_runner.hpp"
#include "sim/fragmentation_export.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/fragmentation_report.hpp"
#include "tools/gantry/progress_bar.hpp"

namespace gantry::cli {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// --policy narrows the run to one of the experiment's policies (any case).
std::vector<std::string> chosen_policies(const FragmentationExperimentSpec& e,
                                         const std::string& flag) {
  if (flag.empty()) return e.policies;
  for (const ExperimentPolicy& p : kExperimentPolicies)
    if (lower(flag) == lower(p.display) || lower(flag) == p.plugin) return {p.display};
  std::string known;
  for (const ExperimentPolicy& p : kExperimentPolicies)
    known += (known.empty() ? "" : ", ") + std::string(p.display);
  throw GantryError(fmt::format("--policy: unknown policy '{}'; known: {}", flag, known));
}

// A text output replaces only a file Gantry wrote there before (same first line: the CSV
// header, the SVG's opening tag), and atomically.
void write_output(const std::filesystem::path& path, const std::string& text) {
  if (!first_line_matches(path.string(), text))
    throw GantryError(
        fmt::format("--out: '{}' exists and was not written by Gantry (its first line "
                    "differs); Gantry does not overwrite it",
                    path.string()));
  write_file_atomically(path.string(), text);
}

// Unallocated GPU % at 100 % and at the last level, policies as columns, one row per variant.
std::string sweep_table(const std::vector<NamedResult>& results) {
  if (results.empty() || results.front().result.policies.empty()) return "";
  size_t width = std::string_view("pod list").size();
  for (const NamedResult& r : results) width = std::max(width, r.variant.size());
  width += 2;
  std::string out = "\nSweep: unallocated GPU % (mean over seeds) at 100 % / at the limit\n";
  out += fmt::format("  {:<{}}", "pod list", width);
  for (const PolicyCurves& p : results.front().result.policies)
    out += fmt::format("{:>16}", p.policy);
  out += "\n";
  for (const NamedResult& r : results) {
    out += fmt::format("  {:<{}}", r.variant, width);
    for (const PolicyCurves& p : r.result.policies) {
      const size_t at100 = std::min<size_t>(100, p.arrival_pct.size() - 1);
      out += fmt::format("{:>16}", fmt::format("{:.1f} / {:.1f}", p.unallocated_gpu_pct_mean[at100],
                                               p.unallocated_gpu_pct_mean.back()));
    }
    out += "\n";
  }
  return out;
}

}  // namespace

void run_experiment_file(const ExperimentSpec& experiment, const SimulateOptions& opt) {
  ExperimentRunOptions options;
  options.policies = chosen_policies(experiment.fragmentation, opt.policy);
  options.seed = opt.seed;
  options.threads = threads_for(opt.parallel);

  // Where the results go is checked before the experiment, not after minutes of it.
  const std::filesystem::path dir = opt.out_dir.empty()
                                        ? std::filesystem::path("gantry-out") / experiment.name
                                        : std::filesystem::path(opt.out_dir);
  make_output_dir("--out", dir.string());
  const std::string db = (dir / "results.db").string();
  check_output_database(db);

  // One bar for every run of every pod list: runs of several lists go on at once.
  const size_t lists = 1 + experiment.fragmentation.variants.size();
  const size_t runs = lists * options.policies.size() *
                      (opt.seed ? 1 : static_cast<size_t>(experiment.fragmentation.seeds));
  ProgressBar bar(fmt::format("{}: {} run{} ({} pod list{}) on {} thread{}", experiment.name, runs,
                              runs == 1 ? "" : "s", lists, lists == 1 ? "" : "s", options.threads,
                              options.threads == 1 ? "" : "s"),
                  !opt.no_progress);
  options.progress = [&bar](const ExperimentProgress& p) {
    bar.update(static_cast<double>(p.runs_done) / static_cast<double>(p.runs_total));
  };
  const std::vector<NamedResult> results =
      run_experiment(experiment, {load_trace_topology, load_trace_pods}, options);
  bar.finish();

  write_fragmentation_database(db, experiment.name, results);
  std::string csv;
  for (const NamedResult& r : results) {
    std::string part = fragmentation_csv(r.result);
    if (!csv.empty()) part = part.substr(part.find('\n') + 1);  // one header for all
    csv += part;
  }
  write_output(dir / "curves.csv", csv);
  write_output(dir / "unallocated.svg", render_svg(unallocated_chart(results.front().result)));

  if (opt.format == "json") {
    std::cout << experiment_json(results).dump(2) << "\n";
    return;
  }
  for (const NamedResult& r : results) std::cout << fragmentation_text(r.result) << "\n";
  if (results.size() > 1) std::cout << sweep_table(results);
  std::cout << fmt::format("\n  results  {}\n  curves   {}\n  plot     {}\n", db,
                           (dir / "curves.csv").string(), (dir / "unallocated.svg").string());
}

}  // namespace gantry::cli
