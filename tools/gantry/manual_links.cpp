#include "tools/gantry/manual_links.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "tools/gantry/shipped_data.hpp"

namespace gantry::cli {

namespace {

constexpr std::string_view kScenarioFile = "scenarios/README.md#the-scenario-file";
constexpr std::string_view kQueues =
    "scenarios/README.md#teams-and-queues-admission-quotas-borrowing-preemption";
constexpr std::string_view kFailures =
    "scenarios/README.md#failures-elastic-jobs-spot-capacity-and-autoscaling";
constexpr std::string_view kServices =
    "scenarios/README.md#inference-services-traffic-autoscaling-cold-starts";
constexpr std::string_view kPipelineFile = "workflow/README.md#the-pipeline-file";
constexpr std::string_view kEventsFile = "workflow/README.md#the-events-file---events";
constexpr std::string_view kSweep = "sim/PLANNING.md#gantry-sweep-a-grid-of-variants";
constexpr std::string_view kPlan =
    "sim/PLANNING.md#gantry-plan-the-cheapest-cluster-that-meets-the-slos";

// Longest prefix first: the first entry whose prefix starts the field (at a key boundary) wins.
struct Prefix {
  std::string_view prefix;
  std::string_view section;
};
constexpr Prefix kSections[] = {
    {"spec.policy.admission", kQueues},
    {"spec.workload.services", kServices},
    {"spec.failures", kFailures},
    {"spec.autoscaling", kFailures},
    {"spec.cluster", kScenarioFile},
    {"spec.workload", kScenarioFile},
    {"spec.policy", kScenarioFile},
    {"spec.sim", kScenarioFile},
    {"spec.seed", kScenarioFile},
    {"spec.start", kScenarioFile},
    {"spec.horizon", kScenarioFile},
    {"spec.schedule", kPipelineFile},
    {"spec.concurrency", kPipelineFile},
    {"spec.dependsOnPast", kPipelineFile},
    {"spec.parallelism", kPipelineFile},
    {"spec.timeout", kPipelineFile},
    {"spec.env", kPipelineFile},
    {"spec.params", kPipelineFile},
    {"spec.tasks", kPipelineFile},
    {"spec.slots", kPipelineFile},  // kind: Pool
    {"spec.maxWait", kPipelineFile},
    {"spec.axes", kSweep},
    {"spec.points", kSweep},
    {"spec.growth", kSweep},
    {"spec.metrics", kSweep},
    {"spec.forecast", kPlan},
    {"spec.pools", kPlan},
    {"spec.slo", kPlan},
    {"spec.confidence", kPlan},
    {"spec.maxSeeds", kPlan},
    {"spec.minimize", kPlan},
    {"spec.base", kSweep},  // a sweep's or a plan's: the sweep section says what a base is
    {"spec.seeds", kSweep},
};

bool starts_at_key(std::string_view field, std::string_view prefix) {
  if (!field.starts_with(prefix)) return false;
  return field.size() == prefix.size() || field[prefix.size()] == '.' ||
         field[prefix.size()] == '[';
}

}  // namespace

std::optional<std::string> manual_section(const std::string& field) {
  // The one file that is a list at its root: the events of `pipeline run --events`.
  if (field.starts_with("[")) return std::string(kEventsFile);
  for (const Prefix& p : kSections)
    if (starts_at_key(field, p.prefix)) return std::string(p.section);
  return std::nullopt;
}

std::vector<std::string> manual_sections(const std::vector<InputError>& errors) {
  std::vector<std::string> out;
  for (const InputError& e : errors)
    if (std::optional<std::string> s = manual_section(e.field());
        s && std::find(out.begin(), out.end(), *s) == out.end())
      out.push_back(*s);
  return out;
}

void print_manual_links(const std::vector<InputError>& errors) {
  const std::vector<std::string> sections = manual_sections(errors);
  if (sections.empty()) return;
  std::string root;
  try {
    root = shipped_data().root.string() + "/";
  } catch (const GantryError&) {
    // No shipped data beside the program: the path in the repository still says where.
  }
  for (const std::string& s : sections) fmt::print(stderr, "see: {}{}\n", root, s);
}

}  // namespace gantry::cli
