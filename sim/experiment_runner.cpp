#include "sim/experiment_runner.hpp"

#include <filesystem>
#include <string_view>
#include <utility>

#include "sim/fragmentation_experiment.hpp"

namespace gantry {

std::string pod_list_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  constexpr std::string_view kPrefix = "openb_pod_list_";
  if (stem.rfind(kPrefix, 0) == 0 && stem.size() > kPrefix.size())
    stem = stem.substr(kPrefix.size());
  return stem;
}

std::vector<NamedResult> run_experiment(const ExperimentSpec& experiment,
                                        const ExperimentTraces& traces,
                                        const ExperimentRunOptions& options) {
  const FragmentationExperimentSpec& e = experiment.fragmentation;
  ExperimentOptions run;
  run.policies = options.policies.empty() ? e.policies : options.policies;
  run.seeds = options.seed ? 1 : e.seeds;
  run.base_seed = options.seed.value_or(experiment.seed);
  run.limit_pct = e.arrival_limit_pct;
  run.typical_coverage = e.typical_coverage;
  run.threads = options.threads;

  std::vector<std::pair<std::string, TraceRef>> lists{{pod_list_name(e.pods.file), e.pods}};
  for (const PodListVariant& v : e.variants) lists.emplace_back(v.name, v.pods);

  FragmentationInput input;
  input.topology = traces.nodes(e.nodes);
  input.node_list = std::filesystem::path(e.nodes.file).filename().string();

  std::vector<NamedResult> results;
  for (size_t i = 0; i < lists.size(); ++i) {
    const auto& [name, ref] = lists[i];
    input.pods = traces.pods(ref);
    input.pod_list = std::filesystem::path(ref.file).filename().string();
    ExperimentProgress at{i, lists.size(), name, 0, 0};
    if (options.progress) {
      options.progress(at);
      run.progress = [&](size_t done, size_t total) {
        at.done = done;
        at.total = total;
        options.progress(at);
      };
    }
    FragmentationResult r = run_fragmentation_experiment(input, run);
    r.scenario = experiment.name;
    results.push_back({name, std::move(r)});
  }
  return results;
}

}  // namespace gantry
