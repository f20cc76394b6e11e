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
  for (const std::string& name : run.policies) experiment_policy(name);  // before any loading
  run.seeds = options.seed ? 1 : e.seeds;
  run.base_seed = options.seed.value_or(experiment.seed);
  run.limit_pct = e.arrival_limit_pct;
  run.typical_coverage = e.typical_coverage;
  run.threads = options.threads;

  std::vector<std::pair<std::string, TraceRef>> lists{{pod_list_name(e.pods.file), e.pods}};
  for (const PodListVariant& v : e.variants) lists.emplace_back(v.name, v.pods);
  std::vector<PodListSource> sources;
  for (const auto& [name, ref] : lists)
    sources.push_back({std::filesystem::path(ref.file).filename().string(),
                       [&traces, &ref = ref] { return traces.pods(ref); }});

  if (options.progress)
    run.progress = [&](const RunsProgress& p) {
      options.progress(ExperimentProgress{p.list, lists.size(), lists[p.list].first, p.list_done,
                                          p.list_total, p.runs_done, p.runs_total});
    };
  const Topology topology = traces.nodes(e.nodes);
  std::vector<FragmentationResult> done = run_fragmentation_lists(
      topology, std::filesystem::path(e.nodes.file).filename().string(), sources, run);

  std::vector<NamedResult> results;
  for (size_t i = 0; i < lists.size(); ++i) {
    done[i].scenario = experiment.name;
    results.push_back({lists[i].first, std::move(done[i])});
  }
  return results;
}

}  // namespace gantry
