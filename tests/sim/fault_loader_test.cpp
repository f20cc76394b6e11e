// spec.failures (sim/fault_loader.hpp): parsed values and every error's message, with its
// line and column counted in the texts below.

#include "sim/fault_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/sim/fault_fixtures.hpp"

namespace gantry {
namespace fault_loader_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Loaded {
  FaultSpec spec;
  std::vector<std::string> errors;  // each "file:line:col: field: message"
};

// Reads the `failures` key of `text` against testing::mixed_cluster(): rack r0 = nodes r0-n0,
// r0-n1 (A100-80G), r1 = r1-n0, r1-n1 (H100-80G), r2 = r2-n0 (no GPUs); node ids 0-4.
Loaded load(const std::string& text, bool topology_ok = true,
            const Topology& t = testing::mixed_cluster()) {
  const ConfigNode doc = parse_yaml_document(text, "f.yaml");
  const ConfigMap root(doc, {"failures"});
  ConfigErrors errors;
  Loaded out;
  out.spec = read_failures(root.required("failures"), t, topology_ok, errors);
  for (const InputError& e : errors.take()) out.errors.push_back(e.what());
  return out;
}

// One process written on line 3 as "  - {" + fields + "}": the first field starts in column 6,
// so a field at offset k of `fields` is in column 6 + k.
Loaded process(const std::string& fields, bool topology_ok = true) {
  return load("failures:\n  processes:\n  - {" + fields + "}\n", topology_ok);
}
// The same for one maintenance entry, on line 3 from column 6.
Loaded maintenance(const std::string& fields, bool topology_ok = true) {
  return load("failures:\n  maintenance:\n  - {" + fields + "}\n", topology_ok);
}

// clang-format off
const std::string kFull =
    "failures:\n"                                                                        // 1
    "  preset: llama3\n"                                                                 // 2
    "  processes:\n"                                                                     // 3
    "  - {component: gpu, gpuModel: h100, mtbf: 3597d, repair: 6h, cause: GPU}\n"        // 4
    "  - component: node\n"                                                              // 5
    "    timeToFailure: {distribution: weibull, shape: 0.7, mtbf: 600d}\n"               // 6
    "    repair: {distribution: exponential, mean: 2h}\n"                                // 7
    "  - {component: rack, timeToFailure: {distribution: weibull, shape: 2, scale: 9d},"
    " repair: {distribution: fixed, duration: 1d}}\n"                                    // 8
    "  maintenance:\n"                                                                   // 9
    "  - {nodes: all, start: 24h, every: 7d, deadline: 2h, duration: 4h, concurrent: 2}\n"  // 10
    "  - {rack: r1, start: 48h, deadline: 0s, duration: 6h}\n"                           // 11
    "  - {nodes: [r2-n0, r0-n1], duration: 1h, cause: firmware}\n";                      // 12
// clang-format on

TEST(FaultLoader, FullExample) {
  const Loaded l = load(kFull);
  ASSERT_THAT(l.errors, ElementsAre());
  // The file's gpu/h100 process replaces the preset's gpu/H100 one (any case); the preset's
  // node/H100 process stays, first; then the file's in file order.
  ASSERT_EQ(l.spec.processes.size(), 4u);
  const FailureProcessSpec& preset_node = l.spec.processes[0];
  EXPECT_EQ(preset_node.component, FailureComponent::kNode);
  EXPECT_EQ(preset_node.gpu_model, "H100");
  EXPECT_EQ(preset_node.time_to_failure.mtbf, llama3_h100_processes()[1].time_to_failure.mtbf);

  const FailureProcessSpec& gpu = l.spec.processes[1];
  EXPECT_EQ(gpu.component, FailureComponent::kGpu);
  EXPECT_EQ(gpu.gpu_model, "h100");  // as written; matched any case when drawing
  EXPECT_EQ(gpu.time_to_failure.kind, TimeToFailure::Kind::kExponential);
  EXPECT_EQ(gpu.time_to_failure.mtbf, days(3597));
  EXPECT_EQ(gpu.repair.kind, RepairTime::Kind::kFixed);
  EXPECT_EQ(gpu.repair.mean, hours(6));
  EXPECT_EQ(gpu.cause, "GPU");

  const FailureProcessSpec& node = l.spec.processes[2];
  EXPECT_EQ(node.component, FailureComponent::kNode);
  EXPECT_EQ(node.gpu_model, "");
  EXPECT_EQ(node.time_to_failure.kind, TimeToFailure::Kind::kWeibull);
  EXPECT_EQ(node.time_to_failure.shape, 0.7);
  // scale = 600 d / Γ(1 + 1/0.7) = 600 / 1.2658235 = 473.99973 d.
  EXPECT_NEAR(node.time_to_failure.scale.seconds() / 86'400, 473.99973, 1e-5);
  EXPECT_EQ(node.repair.kind, RepairTime::Kind::kExponential);
  EXPECT_EQ(node.repair.mean, hours(2));
  EXPECT_EQ(node.cause, "node");  // the component's default

  const FailureProcessSpec& rack = l.spec.processes[3];
  EXPECT_EQ(rack.component, FailureComponent::kRack);
  EXPECT_EQ(rack.time_to_failure.shape, 2);
  EXPECT_EQ(rack.time_to_failure.scale, days(9));
  EXPECT_EQ(rack.repair.kind, RepairTime::Kind::kFixed);
  EXPECT_EQ(rack.repair.mean, days(1));
  EXPECT_EQ(rack.cause, "rack");

  ASSERT_EQ(l.spec.maintenance.size(), 3u);
  const MaintenanceSpec& all = l.spec.maintenance[0];
  EXPECT_EQ(all.target, MaintenanceSpec::Target::kAll);
  EXPECT_EQ(all.start, hours(24));
  EXPECT_EQ(all.every, days(7));
  EXPECT_EQ(all.deadline, hours(2));
  EXPECT_EQ(all.duration, hours(4));
  EXPECT_EQ(all.concurrent, 2);
  EXPECT_EQ(all.cause, "maintenance");
  const MaintenanceSpec& r1 = l.spec.maintenance[1];
  EXPECT_EQ(r1.target, MaintenanceSpec::Target::kRack);
  EXPECT_EQ(r1.rack, 1);
  EXPECT_EQ(r1.start, hours(48));
  EXPECT_FALSE(r1.every.has_value());
  EXPECT_EQ(r1.deadline, Duration{});
  EXPECT_EQ(r1.duration, hours(6));
  EXPECT_EQ(r1.concurrent, 0);
  const MaintenanceSpec& list = l.spec.maintenance[2];
  EXPECT_EQ(list.target, MaintenanceSpec::Target::kNodes);
  EXPECT_EQ(list.nodes, (std::vector<NodeId>{4, 1}));  // as listed: r2-n0 is 4, r0-n1 is 1
  EXPECT_EQ(list.start, Duration{});
  EXPECT_EQ(list.cause, "firmware");
}

TEST(FaultLoader, PresetAloneAndNone) {
  const Loaded llama = load("failures: {preset: llama3}\n");
  ASSERT_THAT(llama.errors, ElementsAre());
  ASSERT_EQ(llama.spec.processes.size(), 2u);
  EXPECT_EQ(llama.spec.processes[0].component, FailureComponent::kGpu);
  EXPECT_EQ(llama.spec.processes[1].component, FailureComponent::kNode);
  const Loaded none = load("failures: {preset: none}\n");
  ASSERT_THAT(none.errors, ElementsAre());
  EXPECT_TRUE(none.spec.empty());
  // A process of another GPU model replaces nothing.
  const Loaded other = load(
      "failures:\n  preset: llama3\n  processes:\n"
      "  - {component: gpu, gpuModel: A100, mtbf: 10d, repair: 1h}\n");
  ASSERT_THAT(other.errors, ElementsAre());
  EXPECT_EQ(other.spec.processes.size(), 3u);
}

// A cluster of A100 nodes only (rack r0: r0-n0, r0-n1): the H100 model is in the catalog but on
// no node.
Topology a100_cluster() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  testing::add_fault_racks(t, testing::add_fault_class(t, "a100", "A100-80G", 8), 1, 2);
  return t;
}

TEST(FaultLoader, PresetOnAClusterWithoutItsGpuModelIsAnError) {
  // The preset's rates were measured on H100s and apply to H100 nodes; on a cluster without
  // one it would model no failure at all. "failures: {preset: " is 19 characters: the value is
  // in column 20.
  EXPECT_THAT(load("failures: {preset: llama3}\n", true, a100_cluster()).errors,
              ElementsAre(HasSubstr(
                  "f.yaml:1:20: failures.preset: the llama3 preset models the failures of the "
                  "Llama 3 paper's H100 GPUs and applies to H100 nodes only; no node of this "
                  "cluster has one (its GPU types: A100-80G)")));
  // An explicit process of a model that no node has is an error too, even if the catalog
  // knows the model. "component: gpu, gpuModel: " is 26 characters: the model at 32.
  EXPECT_THAT(load("failures:\n  processes:\n  - {component: gpu, gpuModel: H100, mtbf: 9d, "
                   "repair: 1h}\n",
                   true, a100_cluster())
                  .errors,
              ElementsAre(HasSubstr("f.yaml:3:32: failures.processes[0].gpuModel: no GPU type of "
                                    "the cluster is 'H100' or a variant of it (known types: "
                                    "A100-80G)")));
  // A cluster with an H100 node takes the preset.
  EXPECT_THAT(load("failures: {preset: llama3}\n").errors, ElementsAre());
}

TEST(FaultLoader, UnknownPreset) {
  // "failures: {preset: " is 19 characters: the value is in column 20.
  EXPECT_THAT(load("failures: {preset: llama4}\n").errors,
              ElementsAre("f.yaml:1:20: failures.preset: unknown value 'llama4'; expected one of: "
                          "none, llama3"));
}

TEST(FaultLoader, UnknownField) {
  // "component: gpu, mtbf: 1d, repair: 1h, " is 38 characters: colour at 6 + 38 = 44.
  EXPECT_THAT(process("component: gpu, mtbf: 1d, repair: 1h, colour: red").errors,
              ElementsAre(HasSubstr("f.yaml:3:44: failures.processes[0].colour: unknown field "
                                    "'colour'; expected one of: component, gpuModel, mtbf, "
                                    "timeToFailure, repair, cause")));
}

TEST(FaultLoader, ZeroMtbfAndBadRepair) {
  // "component: node, mtbf: " is 23 characters: 0s at 29. "component: node, mtbf: 0s, repair: "
  // is 35: "6 hours" at 41.
  EXPECT_THAT(
      process("component: node, mtbf: 0s, repair: 6 hours").errors,
      ElementsAre(
          "f.yaml:3:29: failures.processes[0].mtbf: expected a duration greater than zero, got "
          "'0s'",
          HasSubstr("f.yaml:3:41: failures.processes[0].repair: ")));
}

TEST(FaultLoader, MtbfAndTimeToFailureTogetherOrNeither) {
  // An error about a field points at its value: "component: node, mtbf: 1d, timeToFailure: " is
  // 42 characters, so timeToFailure's '{' is in column 48.
  EXPECT_THAT(process("component: node, mtbf: 1d, timeToFailure: {distribution: exponential, "
                      "mtbf: 2d}, repair: 1h")
                  .errors,
              ElementsAre(HasSubstr("f.yaml:3:48: failures.processes[0].timeToFailure: give mtbf "
                                    "or timeToFailure, not both")));
  // Missing: reported at the map, column 5 ('{').
  EXPECT_THAT(process("component: node, repair: 1h").errors,
              ElementsAre("f.yaml:3:5: failures.processes[0].mtbf: missing required field 'mtbf' "
                          "(or timeToFailure)"));
}

TEST(FaultLoader, WeibullFields) {
  // "component: node, timeToFailure: {" is 33 characters: the inner map's first key is in
  // column 39, and "distribution: weibull, shape: " (30) puts the shape at 69.
  EXPECT_THAT(process("component: node, timeToFailure: {distribution: weibull, shape: 0, "
                      "scale: 9d}, repair: 1h")
                  .errors,
              ElementsAre("f.yaml:3:69: failures.processes[0].timeToFailure.shape: expected a "
                          "number from 0.1 to 100, got '0'"));
  // "distribution: weibull, shape: 2, scale: 9d, mtbf: " is 50: mtbf's value at 39 + 50 = 89.
  EXPECT_THAT(process("component: node, timeToFailure: {distribution: weibull, shape: 2, "
                      "scale: 9d, mtbf: 8d}, repair: 1h")
                  .errors,
              ElementsAre(HasSubstr("f.yaml:3:89: failures.processes[0].timeToFailure.mtbf: give "
                                    "a Weibull's scale or its mean (mtbf), not both")));
  // Neither: at the inner map's '{', column 38.
  EXPECT_THAT(process("component: node, timeToFailure: {distribution: weibull, shape: 2}, "
                      "repair: 1h")
                  .errors,
              ElementsAre("f.yaml:3:38: failures.processes[0].timeToFailure.scale: missing "
                          "required field 'scale' (or mtbf, the mean)"));
  // An exponential takes no shape: "distribution: exponential, shape: " is 34, its value at 73.
  EXPECT_THAT(process("component: node, timeToFailure: {distribution: exponential, shape: 2, "
                      "mtbf: 9d}, repair: 1h")
                  .errors,
              ElementsAre("f.yaml:3:73: failures.processes[0].timeToFailure.shape: an "
                          "exponential time to failure does not take shape (a Weibull's); give "
                          "its mean as mtbf"));
}

TEST(FaultLoader, RepairForms) {
  // "component: node, mtbf: 9d, repair: " is 35 characters: the inner map's '{' is in column 41,
  // its first key in 42; "distribution: fixed, mean: " (27) puts mean's value at 69. In file
  // order: the missing duration (at the '{') before the refused mean.
  EXPECT_THAT(process("component: node, mtbf: 9d, repair: {distribution: fixed, mean: 1h}").errors,
              ElementsAre("f.yaml:3:41: failures.processes[0].repair.duration: missing required "
                          "field 'duration'",
                          "f.yaml:3:69: failures.processes[0].repair.mean: a fixed repair time "
                          "does not take mean; give duration"));
  // "repair: 0s" is a repair that never ends: refused (column 6 + 35 = 41).
  EXPECT_THAT(process("component: node, mtbf: 9d, repair: 0s").errors,
              ElementsAre("f.yaml:3:41: failures.processes[0].repair: expected a duration greater "
                          "than zero, got '0s'"));
}

TEST(FaultLoader, GpuModelMustBeInTheCatalog) {
  // "component: gpu, gpuModel: " is 26 characters: the model at 32.
  EXPECT_THAT(process("component: gpu, gpuModel: B300, mtbf: 9d, repair: 1h").errors,
              ElementsAre(HasSubstr("f.yaml:3:32: failures.processes[0].gpuModel: no GPU type of "
                                    "the cluster is 'B300' or a variant of it (known types: "
                                    "A100-80G, H100-80G")));
  // Not checked when the cluster had errors.
  const Loaded unchecked = process("component: gpu, gpuModel: B300, mtbf: 9d, repair: 1h", false);
  EXPECT_THAT(unchecked.errors, ElementsAre());
  ASSERT_EQ(unchecked.spec.processes.size(), 1u);
  EXPECT_EQ(unchecked.spec.processes[0].gpu_model, "B300");
}

TEST(FaultLoader, UnknownComponent) {
  // "component: " is 11 characters: the value at 17.
  EXPECT_THAT(process("component: switch, mtbf: 9d, repair: 1h").errors,
              ElementsAre("f.yaml:3:17: failures.processes[0].component: unknown value 'switch'; "
                          "expected one of: gpu, node, rack"));
}

TEST(FaultLoader, MaintenanceTargets) {
  // "nodes: [" is 8 characters: the first name at 14, "r0-n0, " (7) puts the second at 21,
  // and "r0-n0, r9-n9, " (14) the third at 28.
  EXPECT_THAT(maintenance("nodes: [r0-n0, r9-n9, r0-n0], duration: 1h").errors,
              ElementsAre("f.yaml:3:21: failures.maintenance[0].nodes[1]: no node named 'r9-n9' "
                          "in the cluster",
                          "f.yaml:3:28: failures.maintenance[0].nodes[2]: node 'r0-n0' is listed "
                          "twice (first at line 3)"));
  // "rack: " is 6: the name at 12.
  EXPECT_THAT(maintenance("rack: r7, duration: 1h").errors,
              ElementsAre("f.yaml:3:12: failures.maintenance[0].rack: no rack named 'r7' in the "
                          "cluster (racks: r0, r1, r2)"));
  // Both: at the second, rack's value, after "nodes: all, rack: " (18): column 24.
  EXPECT_THAT(maintenance("nodes: all, rack: r1, duration: 1h").errors,
              ElementsAre("f.yaml:3:24: failures.maintenance[0].rack: give nodes or rack, not "
                          "both"));
  // Neither: at the map's '{', column 5.
  EXPECT_THAT(maintenance("duration: 1h").errors,
              ElementsAre("f.yaml:3:5: failures.maintenance[0].nodes: missing required field "
                          "'nodes' (all, a list of node names, or rack: NAME)"));
  // nodes: some (the value at 13).
  EXPECT_THAT(maintenance("nodes: some, duration: 1h").errors,
              ElementsAre("f.yaml:3:13: failures.maintenance[0].nodes: expected `all` or a list "
                          "of node names, got 'some'"));
  // Names are not checked when the cluster had errors.
  EXPECT_THAT(maintenance("nodes: [r9-n9], duration: 1h", false).errors, ElementsAre());
}

TEST(FaultLoader, MaintenanceTimes) {
  // duration is required (at the '{'); "nodes: all, every: " is 19: 0s at 25; "nodes: all,
  // every: 0s, concurrent: " is 35: 0 at 41.
  EXPECT_THAT(maintenance("nodes: all, every: 0s, concurrent: 0").errors,
              ElementsAre("f.yaml:3:5: failures.maintenance[0].duration: missing required field "
                          "'duration'",
                          "f.yaml:3:25: failures.maintenance[0].every: expected a duration "
                          "greater than zero, got '0s'",
                          HasSubstr("f.yaml:3:41: failures.maintenance[0].concurrent: expected an "
                                    "integer from 1 to")));
}

TEST(FaultLoader, RoundLongerThanEvery) {
  // All 5 nodes, 2 at a time: ceil(5 / 2) = 3 batches of 1 h + 2 h = 9 h > every 8 h. "nodes:
  // all, every: " is 19 characters: 8h at 25.
  EXPECT_THAT(
      maintenance("nodes: all, every: 8h, deadline: 1h, duration: 2h, concurrent: 2").errors,
      ElementsAre("f.yaml:3:25: failures.maintenance[0].every: a round drains 5 node(s) "
                  "in 3 batch(es) of deadline + duration = 3h each, 9h in all, longer "
                  "than every (8h): the next round would start before this one ends"));
  // 9 h fits exactly.
  EXPECT_THAT(
      maintenance("nodes: all, every: 9h, deadline: 1h, duration: 2h, concurrent: 2").errors,
      ElementsAre());
  // Rack r0 has 2 nodes, all at once: one batch of 3 h, so every 3h is fine, 2h is not.
  EXPECT_THAT(maintenance("rack: r0, every: 3h, deadline: 1h, duration: 2h").errors, ElementsAre());
  EXPECT_THAT(maintenance("rack: r0, every: 2h, deadline: 1h, duration: 2h").errors,
              ElementsAre(HasSubstr("a round drains 2 node(s) in 1 batch(es)")));
}

TEST(FaultLoader, NotAMap) {
  EXPECT_THAT(load("failures: [llama3]\n").errors,
              ElementsAre(HasSubstr("f.yaml:1:11: failures: expected a map")));
  // "  processes: " is 13 characters: the value at 14.
  EXPECT_THAT(load("failures:\n  processes: gpu\n").errors,
              ElementsAre(HasSubstr("f.yaml:2:14: failures.processes: expected a list")));
}

}  // namespace fault_loader_test
}  // namespace gantry
