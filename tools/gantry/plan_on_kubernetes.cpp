#include "tools/gantry/plan_on_kubernetes.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <limits>

#include "engine/core/errors.hpp"
#include "sim/sweep/sweep_documents.hpp"

namespace gantry::cli {

namespace {

// JSON string syntax is valid YAML double-quoted syntax: text is quoted safely.
std::string quoted(const std::string& s) { return nlohmann::json(s).dump(); }

// Where the batch's sweep "is": beside the plan, so that its base resolves as the plan's does.
std::string batch_path(const PlanSpec& plan) {
  const std::filesystem::path file(plan.file);
  return (file.parent_path() / (file.stem().string() + "-batch.yaml")).string();
}

// The figures of each run of `batch`: its point's means (one seed each). Checks that the sweep
// is the batch's, point for point.
std::vector<std::vector<double>> run_figures(const nlohmann::json& sweep, const PlanBatch& batch) {
  const std::string id = sweep.value("id", "");
  const nlohmann::json& points = sweep.at("result").at("points");
  if (points.size() != batch.runs.size())
    throw GantryError(fmt::format("sweep {} has {} points; its plan batch has {} runs", id,
                                  points.size(), batch.runs.size()));
  std::vector<std::vector<double>> out;
  for (size_t i = 0; i < points.size(); ++i) {
    const nlohmann::json& p = points[i];
    if (p.at("values").at("runSeed") != std::to_string(batch.runs[i].seed))
      throw GantryError(fmt::format("sweep {}: point {} has seed {}; its plan batch's run has {}",
                                    id, i, p.at("values").at("runSeed").dump(),
                                    batch.runs[i].seed));
    std::vector<double> figures;
    for (const std::string& m : *batch.metrics) {
      const nlohmann::json& mean = p.at("metrics").at(m).at("mean");
      figures.push_back(mean.is_null() ? std::numeric_limits<double>::quiet_NaN()
                                       : mean.get<double>());
    }
    out.push_back(std::move(figures));
  }
  return out;
}

}  // namespace

std::string plan_batch_sweep(const PlanSpec& plan, const PlanVariants& variants,
                             const PlanBatch& batch) {
  std::string metrics;
  for (const std::string& m : *batch.metrics) metrics += (metrics.empty() ? "" : ", ") + quoted(m);
  std::string out = fmt::format(
      "apiVersion: gantry.dev/v1\n"
      "kind: Sweep\n"
      "metadata: {{name: {}}}\n"
      "spec:\n"
      "  base: {}\n"
      "  seeds: 1\n"
      "  growth: {}\n"
      "  axes:\n"
      "  - {{name: racks, path: spec.cluster.racks}}\n"
      "  - {{name: runSeed, path: spec.seed}}\n"
      "  metrics: [{}]\n"
      "  points:\n",
      quoted(fmt::format("{} growth {} round {}", plan.name.substr(0, 200), batch.growth,
                         batch.round)),
      quoted(plan.base_as_written), batch.growth, metrics);
  for (const PlanBatchRun& run : batch.runs)
    out +=
        fmt::format("  - {{racks: {}, runSeed: {}}}\n", variants.racks_yaml(run.sizes), run.seed);
  return out;
}

PlanBatchRunner kube_plan_runner(const PlanSpec& plan, const PlanVariants& variants,
                                 const KubeSweepOptions& o, KubeSweepSession* session,
                                 bool no_progress) {
  return [&plan, &variants, &o, session, no_progress](const PlanBatch& batch) {
    if (session == nullptr) {
      std::cout << fmt::format(
          "# The plan's first round: {} runs (growth {}). The search runs one Job per round; "
          "the\n# next rounds' configurations depend on this one's figures.\n",
          batch.runs.size(), batch.growth);
      print_dry_run_job(o, batch.runs.size(), "gantry plan");
      throw PlanDryRunPrinted{};
    }
    const SweepDocuments documents =
        collect_sweep_documents(batch_path(plan), plan_batch_sweep(plan, variants, batch));
    const LaunchedSweepJob job = session->launch(documents, batch.runs.size());
    const nlohmann::json done = session->wait(
        job,
        fmt::format("plan {}: growth {}, round {}: {} runs in {} shards on Kubernetes", plan.name,
                    batch.growth, batch.round, job.submitted.runs, job.submitted.shards),
        no_progress);
    return run_figures(done, batch);
  };
}

}  // namespace gantry::cli
