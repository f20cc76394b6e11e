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
#include "tools/gantry/cli_inputs.hpp"
#include "sim/fragmentation_experiment.hpp"
#include "sim/fragmentation_export.hpp"
#include "tools/gantry/fragmentation_report.hpp"
#include "tools/gantry/progress_bar.hpp"

namespace gantry::cli {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// --policy narrows the run to one of the scenario's policies (any case).
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
    throw GantryError(fmt::format("--out: '{}' exists and was not written by Gantry (its first line "
                                  "differs); Gantry does not overwrite it",
                                  path.string()));
  write_file_atomically(path.string(), text);
}

// "data/openb/openb_pod_list_default.csv" -> "default".
std::string list_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  constexpr std::string_view kPrefix = "openb_pod_list_";
  if (stem.rfind(kPrefix, 0) == 0 && stem.size() > kPrefix.size()) stem = stem.substr(kPrefix.size());
  return stem;
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

void run_fragmentation_scenario(const ScenarioSpec& scenario, const SimulateOptions& opt) {
  const FragmentationExperimentSpec& e = *scenario.experiment;
  ExperimentOptions options;
  options.policies = chosen_policies(e, opt.policy);
  options.seeds = opt.seed ? 1 : e.seeds;
  options.base_seed = opt.seed.value_or(scenario.seed);
  options.limit_pct = e.arrival_limit_pct;
  options.typical_coverage = e.typical_coverage;
  options.threads = std::max(1u, std::thread::hardware_concurrency());

  std::vector<std::pair<std::string, TraceRef>> lists{{list_name(e.pods.file), e.pods}};
  for (const PodListVariant& v : e.variants) lists.emplace_back(v.name, v.pods);

  // Where the results go is checked before the experiment, not after minutes of it.
  const std::filesystem::path dir =
      opt.out_dir.empty() ? std::filesystem::path("gantry-out") / scenario.name
                          : std::filesystem::path(opt.out_dir);
  make_output_dir("--out", dir.string());
  const std::string db = (dir / "results.db").string();
  check_output_database(db);

  FragmentationInput input;
  input.topology = load_trace_topology(e.nodes);
  input.node_list = std::filesystem::path(e.nodes.file).filename().string();

  std::vector<NamedResult> results;
  for (size_t i = 0; i < lists.size(); ++i) {
    const auto& [name, ref] = lists[i];
    input.pods = load_trace_pods(ref);
    input.pod_list = std::filesystem::path(ref.file).filename().string();
    ProgressBar bar(fmt::format("{} [{}/{}] {}", scenario.name, i + 1, lists.size(), name),
                    !opt.no_progress);
    options.progress = [&bar](size_t done, size_t total) {
      bar.update(static_cast<double>(done) / static_cast<double>(total));
    };
    FragmentationResult r = run_fragmentation_experiment(input, options);
    bar.finish();
    r.scenario = scenario.name;
    results.push_back({name, std::move(r)});
  }

  write_fragmentation_database(db, scenario.name, results);
  std::string csv;
  for (const NamedResult& r : results) {
    std::string part = fragmentation_csv(r.result);
    if (!csv.empty()) part = part.substr(part.find('\n') + 1);  // one header for all
    csv += part;
  }
  write_output(dir / "curves.csv", csv);
  write_output(dir / "unallocated.svg", render_svg(unallocated_chart(results.front().result)));

  if (opt.format == "json") {
    nlohmann::ordered_json j = fragmentation_json(results.front().result);
    if (results.size() > 1) {
      nlohmann::ordered_json variants = nlohmann::ordered_json::array();
      for (const NamedResult& r : results) {
        nlohmann::ordered_json v = fragmentation_json(r.result);
        v["name"] = r.variant;
        variants.push_back(std::move(v));
      }
      j["variants"] = std::move(variants);
    }
    std::cout << j.dump(2) << "\n";
    return;
  }
  for (const NamedResult& r : results) std::cout << fragmentation_text(r.result) << "\n";
  if (results.size() > 1) std::cout << sweep_table(results);
  std::cout << fmt::format("\n  results  {}\n  curves   {}\n  plot     {}\n", db,
                           (dir / "curves.csv").string(), (dir / "unallocated.svg").string());
}

}  // namespace gantry::cli
