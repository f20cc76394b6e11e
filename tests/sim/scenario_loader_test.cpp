#include "sim/scenario_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/sim/scenario_text.hpp"

namespace gantry {
namespace scenario_loader_test {

using ::testing::HasSubstr;
using ::testing::StartsWith;

const std::string kData = std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/";

// A small valid scenario; tests edit one spot of it. Line numbers matter to the tests below.
const std::string kBase =
    "apiVersion: gantry.dev/v1\n"                                                               // 1
    "kind: Scenario\n"                                                                          // 2
    "metadata: {name: t}\n"                                                                     // 3
    "spec:\n"                                                                                   // 4
    "  cluster:\n"                                                                              // 5
    "    fabric: {kind: InfiniBand}\n"                                                          // 6
    "    storage: {bandwidth: 10GB/s}\n"                                                        // 7
    "    nodeClasses:\n"                                                                        // 8
    "    - {name: g, cpu: 64, memory: 512Gi, gpu: {type: A100-80G, count: 8}, nic: 400Gbps}\n"  // 9
    "    racks:\n"                                                                      // 10
    "    - {name: r1, class: g, nodes: 4}\n"                                            // 11
    "  workload:\n"                                                                     // 12
    "    jobs:\n"                                                                       // 13
    "    - name: j\n"                                                                   // 14
    "      submit: 0s\n"                                                                // 15
    "      framework: PyTorch\n"                                                        // 16
    "      roles:\n"                                                                    // 17
    "      - {kind: Worker, replicas: 2, resources: {cpu: 8, memory: 64Gi, gpu: 8}}\n"  // 18
    "      work: {steps: 10, stepCompute: 1s, gradientSize: 1GB}\n";                    // 19

// kBase with the first occurrence of `from` replaced by `to`.
std::string with(const std::string& from, const std::string& to) {
  return testing::replace_first(kBase, from, to);
}

// The message of the InputError loading `text` must throw ("" and a test failure if none).
std::string error_of(const std::string& text) { return testing::load_error(text, "t.yaml"); }

TEST(ScenarioLoader, BaseIsValid) {
  const ScenarioSpec s = load_scenario_text(kBase, "t.yaml");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.topology.nodes.size(), 4u);
  ASSERT_EQ(s.workload.jobs.size(), 1u);
  EXPECT_EQ(s.workload.jobs[0].total_gpus(), 16);
}

TEST(ScenarioLoader, FullFileEveryField) {
  const ScenarioSpec s = load_scenario_file(kData + "full.yaml");
  EXPECT_EQ(s.name, "full");
  EXPECT_EQ(s.file, kData + "full.yaml");
  EXPECT_EQ(s.seed, 42u);
  Time start;
  ASSERT_TRUE(parse_rfc3339("2026-03-01T08:00:00Z", start));
  EXPECT_EQ(s.start, start);
  ASSERT_TRUE(s.horizon.has_value());
  EXPECT_EQ(*s.horizon, days(7));

  // GPU catalog: A100 overridden with the same figures, X1 added.
  const Topology& t = s.topology;
  const GpuTypeId a100 = t.gpus.find("A100-80G");
  const GpuTypeId x1 = t.gpus.find("X1");
  ASSERT_GE(a100, 0);
  ASSERT_GE(x1, 0);
  EXPECT_EQ(t.gpus.size(), GpuCatalog::with_defaults().size() + 1);
  EXPECT_EQ(t.gpus.at(x1).memory_bytes, 48ll << 30);
  EXPECT_DOUBLE_EQ(t.gpus.at(x1).relative_compute, 0.75);
  EXPECT_DOUBLE_EQ(t.gpus.at(x1).nvlink_bytes_per_s, 0);
  EXPECT_DOUBLE_EQ(t.gpus.at(x1).pcie_bytes_per_s, 25e9);
  EXPECT_EQ(t.gpus.at(x1).source, "made up for tests");

  EXPECT_EQ(t.fabric.kind, FabricKind::kRoCE);
  EXPECT_DOUBLE_EQ(t.fabric.latency_s, 8e-6);
  EXPECT_DOUBLE_EQ(t.fabric.rack_oversubscription, 2);
  EXPECT_DOUBLE_EQ(t.intra_latency.nvlink_s, 3e-6);
  EXPECT_DOUBLE_EQ(t.intra_latency.pcie_s, 6e-6);
  EXPECT_DOUBLE_EQ(t.storage.bytes_per_s, 100e9);

  ASSERT_EQ(t.classes.size(), 3u);
  const NodeClass& dgx = t.classes[0];
  EXPECT_EQ(dgx.name, "dgx-a100");
  EXPECT_EQ(dgx.capacity, (Resources{128'000, 1ll << 40, 8}));
  EXPECT_EQ(dgx.gpu_type, a100);
  EXPECT_EQ(dgx.island_size, 4);
  EXPECT_EQ(dgx.islands(), 2);
  EXPECT_EQ(dgx.island_link, IslandLink::kNVLink);
  EXPECT_DOUBLE_EQ(dgx.island_bytes_per_s, 250e9);
  EXPECT_DOUBLE_EQ(dgx.pcie_bytes_per_s, 30e9);
  EXPECT_DOUBLE_EQ(dgx.nic_bytes_per_s, 100e9);
  // X1 has no NVLink: the link defaults to PCIe, islands of one GPU at the PCIe figure.
  const NodeClass& xbox = t.classes[1];
  EXPECT_EQ(xbox.capacity, (Resources{64'000, 512ll << 30, 4}));
  EXPECT_EQ(xbox.island_link, IslandLink::kPCIe);
  EXPECT_EQ(xbox.island_size, 1);
  EXPECT_DOUBLE_EQ(xbox.island_bytes_per_s, 25e9);
  EXPECT_DOUBLE_EQ(xbox.pcie_bytes_per_s, 25e9);
  EXPECT_DOUBLE_EQ(xbox.nic_bytes_per_s, 25e9);
  const NodeClass& cpu = t.classes[2];
  EXPECT_EQ(cpu.capacity, (Resources{96'500, 384ll << 30, 0}));
  EXPECT_EQ(cpu.gpu_type, -1);
  EXPECT_DOUBLE_EQ(cpu.nic_bytes_per_s, 0);

  ASSERT_EQ(t.racks, (std::vector<std::string>{"r1", "r2", "c1"}));
  ASSERT_EQ(t.nodes.size(), 35u);
  EXPECT_EQ(t.nodes[0].name, "r1-n000");
  EXPECT_EQ(t.nodes[31].name, "r1-n031");
  EXPECT_EQ(t.nodes[31].rack, 0);
  EXPECT_EQ(t.nodes[32].name, "r2-n000");
  EXPECT_EQ(t.nodes[32].node_class, 1);
  EXPECT_EQ(t.nodes[32].rack, 1);
  EXPECT_EQ(t.nodes[34].name, "c1-n000");
  EXPECT_EQ(t.total_gpus(), 32 * 8 + 2 * 4);

  ASSERT_EQ(s.workload.jobs.size(), 2u);
  const JobSpec& bert = s.workload.jobs[0];
  EXPECT_EQ(bert.name, "bert-large");
  EXPECT_EQ(bert.submit, start + minutes(10));
  EXPECT_EQ(bert.framework, Framework::kPyTorch);
  EXPECT_EQ(bert.priority, 3);
  EXPECT_EQ(bert.tenant, "team-a");
  EXPECT_EQ(bert.gpu_type, "A100-80G");  // the catalog's spelling, not the file's
  ASSERT_EQ(bert.roles.size(), 2u);
  EXPECT_EQ(bert.roles[0].kind, RoleKind::kMaster);
  EXPECT_EQ(bert.roles[1].kind, RoleKind::kWorker);
  EXPECT_EQ(bert.roles[1].replicas, 3);
  EXPECT_EQ(bert.roles[1].per_replica, (Resources{8000, 64ll << 30, 8}));
  EXPECT_EQ(bert.total_gpus(), 32);
  EXPECT_EQ(bert.work.steps, 10000);
  EXPECT_EQ(bert.work.step_compute_ref, milliseconds(250));
  EXPECT_EQ(bert.work.gradient_bytes, 1'300'000'000);
  EXPECT_EQ(bert.work.input_bytes_per_step, 64ll << 20);

  const JobSpec& tf = s.workload.jobs[1];
  EXPECT_EQ(tf.framework, Framework::kTensorFlow);
  EXPECT_EQ(tf.submit, start + seconds(5400));
  EXPECT_EQ(tf.tenant, "default");
  EXPECT_EQ(tf.priority, 0);
  EXPECT_EQ(tf.gpu_type, "");
  EXPECT_EQ(tf.roles[0].per_replica, (Resources{4000, 16ll << 30, 0}));
  EXPECT_EQ(tf.roles[1].per_replica, (Resources{500, 8ll << 30, 1}));
  EXPECT_EQ(tf.work.input_bytes_per_step, 0);

  ASSERT_EQ(s.workload.generators.size(), 1u);
  const PoissonGeneratorSpec& g = s.workload.generators[0];
  EXPECT_EQ(g.name, "mixed");
  EXPECT_EQ(g.count, 1000);
  EXPECT_EQ(g.mean_interarrival, minutes(2));
  EXPECT_EQ(g.start, hours(1));
  ASSERT_EQ(g.mix.size(), 2u);
  EXPECT_DOUBLE_EQ(g.mix[0].weight, 0.5);
  EXPECT_EQ(g.mix[0].framework, Framework::kMPI);
  EXPECT_EQ(g.mix[0].steps.min, 5000);
  EXPECT_EQ(g.mix[0].steps.max, 5000);
  EXPECT_EQ(g.mix[0].gradient_bytes, 100'000'000);
  EXPECT_EQ(g.mix[0].cpu_milli_per_gpu, 8000);  // default
  const JobClass& big = g.mix[1];
  EXPECT_DOUBLE_EQ(big.weight, 1.5);
  EXPECT_EQ(big.gpus, 16);
  EXPECT_EQ(big.gpus_per_pod, 8);
  EXPECT_EQ(big.framework, Framework::kPyTorch);
  EXPECT_EQ(big.steps.min, 1000);
  EXPECT_EQ(big.steps.max, 20000);
  EXPECT_EQ(big.step_compute_ref, milliseconds(300));
  EXPECT_EQ(big.input_bytes_per_step, 32ll << 20);
  EXPECT_EQ(big.memory_bytes_per_gpu, 64ll << 30);
  EXPECT_EQ(big.priority, 1);
  EXPECT_EQ(big.tenant, "b");
  EXPECT_EQ(big.gpu_type, "A100-80G");

  EXPECT_EQ(s.policy.order, QueueOrder::kPriority);
  EXPECT_EQ(s.policy.queueing, Queueing::kStrictFifo);
  EXPECT_EQ(s.policy.placement, "topology");
  EXPECT_EQ(s.sim.pod_startup, seconds(12));
}

TEST(ScenarioLoader, MinimalFileDefaults) {
  const ScenarioSpec s = load_scenario_file(kData + "minimal.yaml");
  EXPECT_EQ(s.seed, 1u);
  Time start;
  ASSERT_TRUE(parse_rfc3339("2026-01-01T00:00:00Z", start));
  EXPECT_EQ(s.start, start);
  EXPECT_FALSE(s.horizon.has_value());
  const Topology& t = s.topology;
  EXPECT_EQ(t.fabric.kind, FabricKind::kInfiniBand);
  EXPECT_DOUBLE_EQ(t.fabric.latency_s, 5e-6);
  EXPECT_DOUBLE_EQ(t.fabric.rack_oversubscription, 1);
  EXPECT_DOUBLE_EQ(t.intra_latency.nvlink_s, 2e-6);
  EXPECT_DOUBLE_EQ(t.intra_latency.pcie_s, 5e-6);
  // A10: no NVLink in the catalog, so PCIe islands of one GPU at the catalog's PCIe figure.
  const NodeClass& a10 = t.classes.at(0);
  EXPECT_EQ(a10.island_link, IslandLink::kPCIe);
  EXPECT_EQ(a10.island_size, 1);
  EXPECT_DOUBLE_EQ(a10.island_bytes_per_s, 32e9);
  EXPECT_DOUBLE_EQ(a10.pcie_bytes_per_s, 32e9);
  const JobSpec& job = s.workload.jobs.at(0);
  EXPECT_EQ(job.submit, start);
  EXPECT_EQ(job.roles.at(0).replicas, 1);
  EXPECT_EQ(job.roles.at(0).per_replica.gpus, 0);
  EXPECT_EQ(s.policy.order, QueueOrder::kFifo);
  EXPECT_EQ(s.policy.queueing, Queueing::kBestEffortFifo);
  EXPECT_EQ(s.policy.placement, "binpack");
  EXPECT_EQ(s.sim.pod_startup, seconds(5));
}

TEST(ScenarioLoader, DefaultIslandsFromTheGpuType) {
  // A100 has NVLink in the catalog: NVSwitch, one island of `count`, the NVLink figure.
  const ScenarioSpec s = load_scenario_text(kBase, "t.yaml");
  const NodeClass& c = s.topology.classes.at(0);
  EXPECT_EQ(c.island_link, IslandLink::kNVSwitch);
  EXPECT_EQ(c.island_size, 8);
  EXPECT_DOUBLE_EQ(c.island_bytes_per_s, 300e9);
  EXPECT_DOUBLE_EQ(c.pcie_bytes_per_s, 32e9);
  EXPECT_EQ(s.topology.fabric.kind, FabricKind::kInfiniBand);
  const std::string tcp = with("kind: InfiniBand", "kind: TCP");
  EXPECT_DOUBLE_EQ(load_scenario_text(tcp, "t.yaml").topology.fabric.latency_s, 50e-6);
  const std::string roce = with("kind: InfiniBand", "kind: RoCE");
  EXPECT_DOUBLE_EQ(load_scenario_text(roce, "t.yaml").topology.fabric.latency_s, 10e-6);
}

TEST(ScenarioLoader, UnknownKeyInFile) {
  try {
    load_scenario_file(kData + "bad_unknown_key.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    // The misspelt key, and the key it should have been: one error each, in file order.
    EXPECT_EQ(std::string(e.what()),
              kData +
                  "bad_unknown_key.yaml:8:9: spec.cluster.storage.bandwith: unknown field "
                  "'bandwith'; expected one of: bandwidth\n" +
                  kData +
                  "bad_unknown_key.yaml:8:9: spec.cluster.storage.bandwidth: missing "
                  "required field 'bandwidth'");
  }
}

TEST(ScenarioLoader, UnknownGpuTypeInFileListsKnownTypes) {
  try {
    load_scenario_file(kData + "bad_gpu_type.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), StartsWith(kData + "bad_gpu_type.yaml:12:19: "
                                             "spec.cluster.nodeClasses[0].gpu.type: unknown GPU "
                                             "type 'B300'; known types: A100-80G, H100-80G"));
  }
}

TEST(ScenarioLoader, MissingFileIsAFileError) {
  EXPECT_THROW(load_scenario_file(kData + "does-not-exist.yaml"), FileError);
}

TEST(ScenarioLoader, WrongTypes) {
  EXPECT_EQ(error_of(with("count: 8}", "count: eight}")),
            "t.yaml:9:70: spec.cluster.nodeClasses[0].gpu.count: expected an integer from 1 to "
            "64, got 'eight'");
  EXPECT_EQ(error_of(with("replicas: 2", "replicas: [2]")),
            "t.yaml:18:34: spec.workload.jobs[0].roles[0].replicas: expected an integer from 1 "
            "to 10000, got a list");
  EXPECT_EQ(error_of(kBase.substr(0, kBase.find("    jobs:")) + "    jobs: {a: 1}\n"),
            "t.yaml:13:11: spec.workload.jobs: expected a list, got a map");
}

TEST(ScenarioLoader, BadUnits) {
  EXPECT_EQ(error_of(with("nic: 400Gbps", "nic: 400")),
            "t.yaml:9:79: spec.cluster.nodeClasses[0].nic: expected a bandwidth such as 400Gbps "
            "or 25GB/s, got '400' (the unit is required: bps, bit/s, B/s or Bps)");
  EXPECT_EQ(error_of(with("submit: 0s", "submit: 10")),
            "t.yaml:15:15: spec.workload.jobs[0].submit: expected a duration such as 90s, 1h30m "
            "or 500ms, got '10' (the unit is required: d, h, m, s, ms or us)");
  EXPECT_THAT(error_of(with("memory: 512Gi", "memory: -512Gi")),
              StartsWith("t.yaml:9:34: spec.cluster.nodeClasses[0].memory: expected a size"));
  EXPECT_THAT(error_of(with("stepCompute: 1s", "stepCompute: 0s")),
              StartsWith("t.yaml:19:38: spec.workload.jobs[0].work.stepCompute: expected a "
                         "duration greater than zero"));
  EXPECT_THAT(error_of(with("spec:\n", "spec:\n  horizon: 7\n")),
              StartsWith("t.yaml:5:12: spec.horizon: expected a duration"));
}

TEST(ScenarioLoader, Envelope) {
  EXPECT_EQ(error_of(with("kind: Scenario", "kind: scenario")),
            "t.yaml:2:7: kind: expected kind Scenario, got 'scenario'");
  EXPECT_THAT(error_of(with("gantry.dev/v1", "gantry.dev/v0")),
              StartsWith("t.yaml:1:13: apiVersion: unsupported apiVersion"));
  // Both errors of the misspelt key: what is there, and what is missing.
  EXPECT_EQ(error_of(with("{name: t}", "{nam: t}")),
            "t.yaml:3:11: metadata.name: missing required field 'name'\n"
            "t.yaml:3:12: metadata.nam: unknown field 'nam'; expected one of: name, description, "
            "labels");
  EXPECT_EQ(error_of(with("spec:\n", "spec:\n  seeds: 3\n")),
            "t.yaml:5:3: spec.seeds: unknown field 'seeds'; expected one of: seed, start, "
            "horizon, cluster, workload, policy, sim, failures, autoscaling");
}

// Three mistakes in three parts of the file: each reported once, in file order, and none of
// the checks that depend on them (the gang's fit needs the cluster) adds a fourth.
TEST(ScenarioLoader, EveryBadFieldIsReported) {
  std::string text = with("count: 8}", "count: eight}");
  text = testing::replace_first(text, "submit: 0s", "submit: 10");
  text = testing::replace_first(text, "steps: 10,", "steps: 0,");
  EXPECT_EQ(error_of(text),
            "t.yaml:9:70: spec.cluster.nodeClasses[0].gpu.count: expected an integer from 1 to "
            "64, got 'eight'\n"
            "t.yaml:15:15: spec.workload.jobs[0].submit: expected a duration such as 90s, 1h30m "
            "or 500ms, got '10' (the unit is required: d, h, m, s, ms or us)\n"
            "t.yaml:19:21: spec.workload.jobs[0].work.steps: expected an integer from 1 to "
            "1000000000000, got '0'");
}

// 150 jobs with a bad submit: the first 100 errors, then a note; the jobs past the limit are
// not read at all (and not checked with values that were never read).
TEST(ScenarioLoader, ErrorsStopAtTheLimit) {
  std::string text = kBase.substr(0, kBase.find("    jobs:")) + "    jobs:\n";
  for (int i = 0; i < 150; ++i)
    text += "    - {name: j" + std::to_string(i) +
            ", submit: soon, framework: MPI, roles: [{kind: Worker, resources: {cpu: 1, "
            "memory: 1Gi}}], work: {steps: 1, stepCompute: 1s, gradientSize: 0}}\n";
  try {
    load_scenario_text(text, "t.yaml");
    FAIL() << "no error";
  } catch (const InputErrors& e) {
    ASSERT_EQ(e.errors().size(), 101u);
    EXPECT_EQ(e.errors()[0].field(), "spec.workload.jobs[0].submit");
    EXPECT_EQ(e.errors()[99].field(), "spec.workload.jobs[99].submit");
    EXPECT_STREQ(e.errors()[100].what(),
                 "t.yaml: stopped after 100 errors; the rest was not checked");
  }
}

// A node class whose name is wrong is one error: the rack that names it is not another.
TEST(ScenarioLoader, OneMistakeIsReportedOnce) {
  EXPECT_EQ(error_of(with("{name: g, cpu", "{name: \"\", cpu")),
            "t.yaml:9:14: spec.cluster.nodeClasses[0].name: expected a name, got an empty string");
  // A bad GPU request of a role: neither the pod's fit nor the gang's is checked on top.
  EXPECT_EQ(error_of(with("gpu: 8}}", "gpu: 1.5}}")),
            "t.yaml:18:76: spec.workload.jobs[0].roles[0].resources.gpu: expected a GPU count "
            "such as 1 or 2, or a share of one GPU below 1 such as 0.5, got '1.5' (a share is of "
            "one GPU; ask for whole GPUs above 1)");
}

// The spellings of a pipeline task's resources (engine/config/resource_fields.hpp).
TEST(ScenarioLoader, RolesAskForGpusAsPipelineTasksDo) {
  const ScenarioSpec s = load_scenario_text(with("gpu: 8}}", "gpu: \"0.5\"}}"), "t.yaml");
  EXPECT_EQ(s.workload.jobs.at(0).roles.at(0).per_replica, (Resources{8000, 64ll << 30, 0, 500}));
  // Shares pack by GPU: 4 nodes × 8 GPUs × 2 shares of 0.5 hold 64 such pods, not 65.
  EXPECT_NO_THROW(
      load_scenario_text(with("replicas: 2, resources: {cpu: 8, memory: 64Gi, gpu: 8}",
                              "replicas: 64, resources: {cpu: 1, memory: 1Gi, gpu: 0.5}"),
                         "t.yaml"));
  EXPECT_EQ(error_of(with("replicas: 2, resources: {cpu: 8, memory: 64Gi, gpu: 8}",
                          "replicas: 65, resources: {cpu: 1, memory: 1Gi, gpu: 0.5}")),
            "t.yaml:18:7: spec.workload.jobs[0].roles: job 'j' can never start: it needs 65 "
            "Worker pods of cpu 1000m, memory 1Gi, gpu 0.5, but the whole cluster holds at most "
            "64 of them at once");
}

// Node pools count at their maximum size in the gang check: 6 Worker pods of 8 GPUs need 6
// nodes; the cluster's own 4 plus a pool of at most 2 hold them, a pool of at most 1 does not.
TEST(ScenarioLoader, AGangMayNeedTheNodesOfAPool) {
  const std::string six = with("replicas: 2,", "replicas: 6,");
  const std::string pool =
      "  autoscaling:\n"
      "    pools:\n"
      "    - {name: p, nodeClass: g, rack: r1, max: 2, provisioning: 3m}\n";
  EXPECT_NO_THROW(load_scenario_text(six + pool, "t.yaml"));
  EXPECT_EQ(error_of(six + testing::replace_first(pool, "max: 2", "max: 1")),
            "t.yaml:18:7: spec.workload.jobs[0].roles: job 'j' can never start: it needs 6 "
            "Worker pods of cpu 8000m, memory 64Gi, gpu 8, but the whole cluster holds at most 5 "
            "of them at once");
  EXPECT_THAT(error_of(six),
              HasSubstr("it needs 6 Worker pods of cpu 8000m, memory 64Gi, gpu 8, but the whole "
                        "cluster holds at most 4 of them at once"));
}

// Until issue #9 an experiment was a Scenario with spec.experiment; that file now says how to
// convert it, at the block, and nothing else.
TEST(ScenarioLoader, AnExperimentInTheScenarioFormIsToldItsKind) {
  const std::string old =
      "apiVersion: gantry.dev/v1\n"
      "kind: Scenario\n"
      "metadata: {name: e}\n"
      "spec:\n"
      "  seed: 1\n"
      "  experiment:\n"
      "    kind: Fragmentation\n"
      "    nodes: {format: openb-nodes, file: nodes.csv}\n";
  EXPECT_EQ(error_of(old),
            "t.yaml:6:3: spec.experiment: an experiment is a file of its own kind: write kind: "
            "Experiment, move the fields of spec.experiment up into spec, and replace their kind: "
            "Fragmentation by type: Fragmentation (see scenarios/openb-fragmentation.yaml)");
}

TEST(ScenarioLoader, MissingRequiredFields) {
  EXPECT_EQ(error_of(with("    storage: {bandwidth: 10GB/s}\n", "")),
            "t.yaml:6:5: spec.cluster.storage: missing required field 'storage'");
  EXPECT_EQ(error_of(with("      submit: 0s\n", "")),
            "t.yaml:14:7: spec.workload.jobs[0].submit: missing required field 'submit'");
}

TEST(ScenarioLoader, ClusterSemantics) {
  EXPECT_EQ(error_of(with("count: 8}", "count: 8, islandSize: 3}")),
            "t.yaml:9:85: spec.cluster.nodeClasses[0].gpu.islandSize: count (8) must be a "
            "multiple of islandSize (3)");
  EXPECT_EQ(error_of(with("count: 8}", "count: 65}")),
            "t.yaml:9:70: spec.cluster.nodeClasses[0].gpu.count: expected an integer from 1 to "
            "64, got '65'");
  EXPECT_EQ(error_of(with("class: g", "class: h")),
            "t.yaml:11:25: spec.cluster.racks[0].class: unknown node class 'h'; classes defined "
            "in spec.cluster.nodeClasses: g");
  EXPECT_EQ(error_of(with("    - {name: r1, class: g, nodes: 4}\n", "    []\n")),
            "t.yaml:11:5: spec.cluster.racks: expected at least one rack");
  EXPECT_EQ(error_of(with(
                "    - {name: r1, class: g, nodes: 4}\n",
                "    - {name: r1, class: g, nodes: 4}\n    - {name: r1, class: g, nodes: 1}\n")),
            "t.yaml:12:14: spec.cluster.racks[1].name: duplicate rack name 'r1'");
  EXPECT_EQ(error_of(with("nodes: 4", "nodes: 100001")),
            "t.yaml:11:35: spec.cluster.racks[0].nodes: expected an integer from 0 to 100000, "
            "got '100001'");
  EXPECT_THAT(error_of(with("{type: A100-80G, count: 8}", "{type: A10, count: 4, link: NVLink}")),
              StartsWith("t.yaml:9:46: spec.cluster.nodeClasses[0].gpu: GPU type A10 has no "
                         "NVLink bandwidth in the catalog; set islandBandwidth or use link: PCIe"));
  EXPECT_EQ(error_of(with("{kind: InfiniBand}", "{kind: Infiniband}")),
            "t.yaml:6:20: spec.cluster.fabric.kind: unknown value 'Infiniband'; expected one of: "
            "InfiniBand, RoCE, TCP");
  EXPECT_EQ(error_of(with(", nic: 400Gbps}", "}")),
            "t.yaml:9:7: spec.cluster.nodeClasses[0].nic: missing required field 'nic'");
}

// The compact rack form loads to the same cluster as the racks written out: 3 racks of 2
// nodes named r001..r003 (nodes r001-n000, ...), alone or as an item of the list beside
// explicit racks; its mistakes are named at their line and column.
TEST(ScenarioLoader, CompactRacksLoadTheSameClusterAsTheList) {
  const std::string rack = "    - {name: r1, class: g, nodes: 4}\n";
  const auto nodes = [](const Topology& t) {
    std::vector<std::string> out;
    for (const NodeInfo& n : t.nodes)
      out.push_back(n.name + " " + t.racks[n.rack] + " " + std::to_string(n.node_class));
    return out;
  };
  const Topology listed = load_scenario_text(with(rack,
                                                  "    - {name: r001, class: g, nodes: 2}\n"
                                                  "    - {name: r002, class: g, nodes: 2}\n"
                                                  "    - {name: r003, class: g, nodes: 2}\n"),
                                             "t.yaml")
                              .topology;
  const Topology compact =
      load_scenario_text(
          testing::replace_first(with(rack, ""), "    racks:\n",
                                 "    racks: {count: 3, nodesPerRack: 2, class: g}\n"),
          "t.yaml")
          .topology;
  EXPECT_EQ(compact.racks, (std::vector<std::string>{"r001", "r002", "r003"}));
  EXPECT_EQ(compact.racks, listed.racks);
  EXPECT_EQ(nodes(compact), nodes(listed));
  EXPECT_EQ(nodes(compact).front(), "r001-n000 r001 0");

  const Topology mixed = load_scenario_text(with(rack,
                                                 "    - {count: 2, nodesPerRack: 1, class: g}\n"
                                                 "    - {name: spare, class: g, nodes: 0}\n"
                                                 "    - {count: 1, nodesPerRack: 3, class: g}\n"),
                                            "t.yaml")
                             .topology;
  EXPECT_EQ(mixed.racks, (std::vector<std::string>{"r001", "r002", "spare", "r003"}));
  EXPECT_EQ(mixed.nodes.size(), 5u);

  EXPECT_EQ(error_of(with(rack, "    - {count: 0, nodesPerRack: 2, class: g}\n")),
            "t.yaml:11:15: spec.cluster.racks[0].count: expected an integer from 1 to 100000, "
            "got '0'");
  EXPECT_EQ(error_of(with(rack, "    - {count: 2, nodesPerRack: 2, class: h}\n")),
            "t.yaml:11:42: spec.cluster.racks[0].class: unknown node class 'h'; classes defined "
            "in spec.cluster.nodeClasses: g");
  EXPECT_EQ(error_of(with(rack, "    - {count: 2, nodesPerRack: 60000, class: g}\n")),
            "t.yaml:11:32: spec.cluster.racks[0].nodesPerRack: the cluster would have more than "
            "100000 nodes; that is surely a typo");
  EXPECT_EQ(error_of(with(rack,
                          "    - {name: r002, class: g, nodes: 1}\n"
                          "    - {count: 2, nodesPerRack: 1, class: g}\n")),
            "t.yaml:12:15: spec.cluster.racks[1].count: names rack r002, which the list names "
            "already; racks of the compact form are named r001, r002, ... in order");
  EXPECT_EQ(error_of(with(rack, "    - {count: 2, nodes: 1, class: g}\n")),
            "t.yaml:11:7: spec.cluster.racks[0].nodesPerRack: missing required field "
            "'nodesPerRack'\n"
            "t.yaml:11:18: spec.cluster.racks[0].nodes: unknown field 'nodes'; expected one of: "
            "count, nodesPerRack, class");
}

TEST(ScenarioLoader, JobSemantics) {
  EXPECT_EQ(
      error_of(with("      framework: PyTorch\n", "      framework: PyTorch\n      gpuType: Z9\n")),
      "t.yaml:17:16: spec.workload.jobs[0].gpuType: unknown GPU type 'Z9'; known types: "
      "A100-80G, H100-80G, H800, A10, T4, V100, L40S (add others under "
      "spec.cluster.gpuTypes)");
  EXPECT_EQ(
      error_of(with("      framework: PyTorch\n", "      framework: PyTorch\n      gpuType: T4\n")),
      "t.yaml:17:16: spec.workload.jobs[0].gpuType: no node class in spec.cluster has GPU "
      "type T4");
  EXPECT_EQ(error_of(with("{kind: Worker,", "{kind: PS,")),
            "t.yaml:18:16: spec.workload.jobs[0].roles[0].kind: role PS is not used by PyTorch "
            "jobs; expected one of: Master, Worker");
  EXPECT_EQ(error_of(with("{kind: Worker,", "{kind: worker,")),
            "t.yaml:18:16: spec.workload.jobs[0].roles[0].kind: unknown value 'worker'; expected "
            "one of: PS, Chief, Worker, Evaluator, Master, Launcher");
  EXPECT_EQ(error_of(with("{kind: Worker, replicas: 2", "{kind: Master, replicas: 2")),
            "t.yaml:18:34: spec.workload.jobs[0].roles[0].replicas: a job has exactly one "
            "Master; expected replicas: 1");
  EXPECT_EQ(error_of(with("      roles:\n      - {kind: Worker, replicas: 2, resources: {cpu: 8, "
                          "memory: 64Gi, gpu: 8}}\n",
                          "      roles: []\n")),
            "t.yaml:17:14: spec.workload.jobs[0].roles: a job needs at least one role");
  EXPECT_EQ(error_of(with("steps: 10,", "steps: 0,")),
            "t.yaml:19:21: spec.workload.jobs[0].work.steps: expected an integer from 1 to "
            "1000000000000, got '0'");
  EXPECT_EQ(error_of(with("gpu: 8}}", "gpu: 9}}")),
            "t.yaml:18:48: spec.workload.jobs[0].roles[0].resources: no node class can hold one "
            "pod of cpu 8000m, memory 64Gi, gpu 9");
  EXPECT_EQ(error_of(with("framework: PyTorch", "framework: Pytorch")),
            "t.yaml:16:18: spec.workload.jobs[0].framework: unknown value 'Pytorch'; expected "
            "one of: PyTorch, TensorFlow, MPI");
  const std::string twice = kBase +
                            "    - name: j\n"
                            "      submit: 1s\n"
                            "      framework: MPI\n"
                            "      roles: [{kind: Worker, resources: {cpu: 1, memory: 1Gi}}]\n"
                            "      work: {steps: 1, stepCompute: 1s, gradientSize: 0}\n";
  EXPECT_EQ(error_of(twice),
            "t.yaml:20:13: spec.workload.jobs[1].name: duplicate job name 'j' (first used at "
            "line 14)");
}

TEST(ScenarioLoader, GeneratorSemantics) {
  const std::string generator =
      "    generators:\n"             // 20
      "    - kind: Poisson\n"         // 21
      "      name: gen\n"             // 22
      "      count: 10\n"             // 23
      "      meanInterarrival: 2m\n"  // 24
      "      mix:\n"                  // 25
      "      - {weight: 1, gpus: 16, gpusPerPod: 8, steps: 10, stepCompute: 1s, gradientSize: "
      "1GB}\n";
  const ScenarioSpec ok = load_scenario_text(kBase + generator, "t.yaml");
  ASSERT_EQ(ok.workload.generators.size(), 1u);
  EXPECT_EQ(ok.workload.generators[0].start, Duration(0));
  EXPECT_EQ(ok.workload.generators[0].mix[0].steps.max, 10);

  auto edit = [&](const std::string& from, const std::string& to) {
    std::string text = kBase + generator;
    text.replace(text.rfind(from), from.size(), to);  // the generator is last
    return text;
  };
  EXPECT_EQ(error_of(edit("gpusPerPod: 8", "gpusPerPod: 3")),
            "t.yaml:26:43: spec.workload.generators[0].mix[0].gpusPerPod: gpus (16) must be a "
            "multiple of gpusPerPod (3)");
  EXPECT_EQ(error_of(edit("weight: 1,", "weight: 0,")),
            "t.yaml:26:18: spec.workload.generators[0].mix[0].weight: a weight must be greater "
            "than zero");
  EXPECT_EQ(error_of(edit("steps: 10,", "steps: {min: 10, max: 5},")),
            "t.yaml:26:68: spec.workload.generators[0].mix[0].steps.max: max (5) is below min "
            "(10)");
  EXPECT_EQ(error_of(edit("kind: Poisson", "kind: poisson")),
            "t.yaml:21:13: spec.workload.generators[0].kind: unknown value 'poisson'; expected "
            "one of: Poisson");
  EXPECT_EQ(error_of(edit("      mix:\n      - {weight", "      mix: []\n      x: {weight")),
            "t.yaml:25:12: spec.workload.generators[0].mix: a generator needs at least one entry "
            "in its mix\n"
            "t.yaml:26:7: spec.workload.generators[0].x: unknown field 'x'; expected one of: "
            "kind, name, count, meanInterarrival, start, mix");
  // No clash: generated jobs are "j-<index>", the explicit job is "j".
  EXPECT_NO_THROW(load_scenario_text(edit("name: gen", "name: j"), "t.yaml"));
}

TEST(ScenarioLoader, GeneratedNamesMayNotClashWithJobs) {
  const std::string text =
      with("- name: j\n", "- name: gen-7\n") +
      "    generators:\n"
      "    - {kind: Poisson, name: gen, count: 10, meanInterarrival: 2m,\n"
      "       mix: [{weight: 1, gpus: 1, steps: 1, stepCompute: 1s, gradientSize: 0}]}\n";
  EXPECT_EQ(error_of(text),
            "t.yaml:14:13: spec.workload.jobs[0].name: job name 'gen-7' clashes with the jobs of "
            "generator 'gen', named gen-<index>");
}

TEST(ScenarioLoader, EmptyWorkloadIsAnError) {
  const std::string text = kBase.substr(0, kBase.find("    jobs:")) + "    jobs: []\n";
  EXPECT_EQ(error_of(text),
            "t.yaml:13:5: spec.workload: the workload has no jobs, no generators and no services");
}

TEST(ScenarioLoader, PolicyAndSim) {
  const std::string text = kBase +
                           "  policy: {queue: Priority, queueing: StrictFIFO, placement: spread}\n"
                           "  sim: {podStartup: 30s}\n";
  const ScenarioSpec s = load_scenario_text(text, "t.yaml");
  EXPECT_EQ(s.policy.order, QueueOrder::kPriority);
  EXPECT_EQ(s.policy.queueing, Queueing::kStrictFifo);
  EXPECT_EQ(s.policy.placement, "spread");
  EXPECT_EQ(s.sim.pod_startup, seconds(30));
  EXPECT_EQ(error_of(kBase + "  policy: {queue: fifo}\n"),
            "t.yaml:20:19: spec.policy.queue: unknown value 'fifo'; expected one of: Fifo, "
            "Priority");
  EXPECT_EQ(error_of(kBase + "  policy: {queueing: BestEffortFifo}\n"),
            "t.yaml:20:22: spec.policy.queueing: unknown value 'BestEffortFifo'; expected one "
            "of: BestEffortFIFO, StrictFIFO");
}

TEST(ScenarioLoader, SyntaxAndDuplicateKeys) {
  EXPECT_THAT(error_of(with("    racks:\n", "    racks: [\n")), StartsWith("t.yaml:"));
  EXPECT_THAT(error_of(with("    racks:\n", "    racks: [\n")), HasSubstr("YAML syntax error"));
  EXPECT_EQ(error_of(with("  workload:\n", "  seed: 1\n  seed: 2\n  workload:\n")),
            "t.yaml:13:3: spec.seed: duplicate field 'seed' (first given at line 12)");
  EXPECT_EQ(error_of(""), "t.yaml: the file holds no YAML document");
  EXPECT_EQ(error_of("- 1\n"),
            "t.yaml:1:1: expected a map with fields apiVersion, kind, "
            "metadata, spec, got a list");
}

TEST(ScenarioLoader, StartAndOffsets) {
  const ScenarioSpec s = load_scenario_text(
      with("spec:\n", "spec:\n  start: 2026-06-01T12:00:00+02:00\n  horizon: 1h30m\n"), "t.yaml");
  Time start;
  ASSERT_TRUE(parse_rfc3339("2026-06-01T10:00:00Z", start));
  EXPECT_EQ(s.start, start);
  EXPECT_EQ(s.horizon, seconds(5400));
  EXPECT_EQ(error_of(with("spec:\n", "spec:\n  start: tomorrow\n")),
            "t.yaml:5:10: spec.start: expected an RFC 3339 time such as 2026-01-01T00:00:00Z, "
            "got 'tomorrow'");
  EXPECT_EQ(error_of(with("submit: 0s", "submit: 106751991d")),
            "t.yaml:15:15: spec.workload.jobs[0].submit: expected a duration from 0s to 36500d, "
            "got '106751991d' (value out of range)");
}

// Issue 22: a seed of 2^64 − 1 was refused as "expected an integer >= 0", which it is; the
// message names the upper bound, 2^63 − 1.
TEST(ScenarioLoader, ASeedPastTheRangeNamesItsUpperBound) {
  EXPECT_EQ(error_of(with("spec:\n", "spec:\n  seed: 18446744073709551615\n")),
            "t.yaml:5:9: spec.seed: expected an integer from 0 to 9223372036854775807, got "
            "'18446744073709551615' (out of range)");
}

// Issue 8: every instant a file produces stays on or before 9999-12-31T23:59:59.999999Z.
TEST(ScenarioLoader, OffsetsStayWithinTheYear9999) {
  const std::string late = with("spec:\n", "spec:\n  start: 9999-12-01T00:00:00Z\n");  // +1 line
  EXPECT_EQ(error_of(late + "  horizon: 31d\n"),
            "t.yaml:21:12: spec.horizon: the offset puts the instant past "
            "9999-12-31T23:59:59.999999Z, the latest instant Gantry simulates");
  // Job j: submit 0s, 10 steps of 1s on A100s (relative compute 1): 10 s fit; 2,678,400 steps
  // (31 days = 2,678,400 s) do not: 9999-12-01 + 31 days is 10000-01-01.
  EXPECT_NO_THROW(load_scenario_text(late, "t.yaml"));
  std::string long_job = late;
  long_job.replace(long_job.find("steps: 10,"), 10, "steps: 2678400,");
  EXPECT_EQ(error_of(long_job),
            "t.yaml:20:21: spec.workload.jobs[0].work.steps: the job would compute for at least "
            "31.0 days (2678400 steps × stepCompute 1.0s on GPUs of relative compute 1) and "
            "end after 9999-12-31T23:59:59.999999Z, the latest instant Gantry simulates");
}

// Issue 8: 10^14 steps of 150 ms (475,000 years) used to "finish" in seconds with exit 0.
TEST(ScenarioLoader, JobsThatCannotEndInRepresentableTimeAreRejected) {
  // 10^12 steps (the most allowed) × 150 ms = 1.5e11 s = 4,753 years from 2026: fits.
  // × 1.5 s = 1.5e12 s = 47,532.1 years of 365.25 days: does not.
  EXPECT_NO_THROW(load_scenario_text(
      with("steps: 10, stepCompute: 1s", "steps: 1000000000000, stepCompute: 150ms"), "t.yaml"));
  EXPECT_EQ(
      error_of(with("steps: 10, stepCompute: 1s", "steps: 1000000000000, stepCompute: 1500ms")),
      "t.yaml:19:21: spec.workload.jobs[0].work.steps: the job would compute for at least "
      "47532 years (1000000000000 steps × stepCompute 1.5s on GPUs of relative compute "
      "1) and end after 9999-12-31T23:59:59.999999Z, the latest instant Gantry "
      "simulates");
  EXPECT_EQ(error_of(with("steps: 10,", "steps: 100000000000000,")),
            "t.yaml:19:21: spec.workload.jobs[0].work.steps: expected an integer from 1 to "
            "1000000000000, got '100000000000000'");
}

// Issue 8: relativeCompute 1e-300 gave a 5 s job; the figure has a range.
TEST(ScenarioLoader, GpuFiguresHaveRanges) {
  const std::string types =
      with("    fabric:", "    gpuTypes: [{name: A100-80G, relativeCompute: 1e-300}]\n    fabric:");
  EXPECT_EQ(error_of(types),
            "t.yaml:6:50: spec.cluster.gpuTypes[0].relativeCompute: expected a number from "
            "0.001 to 1000, got '1e-300'");
  EXPECT_EQ(error_of(with("{kind: InfiniBand}", "{kind: InfiniBand, latency: 2s}")),
            "t.yaml:6:41: spec.cluster.fabric.latency: expected a duration from 0s to 1s, got "
            "'2s' (value out of range)");
  EXPECT_EQ(error_of(with("memory: 512Gi", "memory: 1e30GB")),
            "t.yaml:9:34: spec.cluster.nodeClasses[0].memory: expected a size in bytes from 0 to "
            "64Ti, got '1e30GB' (value out of range)");
}

// Issue 8: 1000000d between arrivals overflowed the arrival times.
TEST(ScenarioLoader, GeneratorArrivalsHaveRanges) {
  const std::string g =
      "    generators:\n"
      "    - {kind: Poisson, name: gen, count: COUNT, meanInterarrival: MEAN,\n"
      "       mix: [{weight: 1, gpus: 8, gpusPerPod: 8, steps: 1, stepCompute: 1s, gradientSize: "
      "0}]}\n";
  auto gen = [&](const std::string& count, const std::string& mean) {
    std::string text = kBase + g;
    text.replace(text.find("COUNT"), 5, count);
    text.replace(text.find("MEAN"), 4, mean);
    return text;
  };
  EXPECT_EQ(error_of(gen("600", "1000000d")),
            "t.yaml:21:64: spec.workload.generators[0].meanInterarrival: expected a duration from "
            "0s to 36500d, got '1000000d' (value out of range)");
  // 600 × 36500 days = 60,000 years from 2026.
  EXPECT_EQ(error_of(gen("600", "36500d")),
            "t.yaml:21:64: spec.workload.generators[0].meanInterarrival: the 600 arrivals would "
            "span about 59959 years (count × meanInterarrival) and go past "
            "9999-12-31T23:59:59.999999Z, the latest instant Gantry simulates");
  EXPECT_EQ(error_of(gen("100000000", "1s")),
            "t.yaml:21:41: spec.workload.generators[0].count: expected an integer from 1 to "
            "1000000, got '100000000'");
  // Two generators of 600,000 each: 1,200,001 jobs with j.
  std::string two = gen("600000", "1s");
  two +=
      "    - {kind: Poisson, name: gen2, count: 600000, meanInterarrival: 1s,\n"
      "       mix: [{weight: 1, gpus: 8, gpusPerPod: 8, steps: 1, stepCompute: 1s, gradientSize: "
      "0}]}\n";
  EXPECT_EQ(error_of(two),
            "t.yaml:13:5: spec.workload: the workload has 1200001 jobs (explicit and generated); "
            "at most 1000000 are simulated at once");
}

// Issue 8: a 1,024-GPU job on a 256-GPU cluster waited forever and the run exited 0.
TEST(ScenarioLoader, JobsThatCanNeverFitAreRejected) {
  // kBase: 4 nodes of 8 A100s = 32 GPUs. 5 pods of 8 GPUs: each fits a node, not all at once.
  EXPECT_EQ(error_of(with("replicas: 2,", "replicas: 5,")),
            "t.yaml:18:7: spec.workload.jobs[0].roles: job 'j' can never start: it needs 5 Worker "
            "pods of cpu 8000m, memory 64Gi, gpu 8, but the whole cluster holds at most 4 of them "
            "at once");
  // Memory: 3 pods of 300Gi each fit a 512Gi node alone, but only one per node: 4 at most;
  // 5 do not.
  EXPECT_THAT(
      error_of(with("replicas: 2, resources: {cpu: 8, memory: 64Gi, gpu: 8}",
                    "replicas: 5, resources: {cpu: 8, memory: 300Gi, gpu: 0}")),
      HasSubstr("can never start: it needs 5 Worker pods of cpu 8000m, memory 300Gi, gpu 0, "
                "but the whole cluster holds at most 4 of them at once"));
  const std::string gen = kBase +
                          "    generators:\n"
                          "    - {kind: Poisson, name: gen, count: 10, meanInterarrival: 1m,\n"
                          "       mix: [{weight: 1, gpus: 1024, gpusPerPod: 8, steps: 1, "
                          "stepCompute: 1s, gradientSize: 0}]}\n";
  EXPECT_EQ(error_of(gen),
            "t.yaml:22:32: spec.workload.generators[0].mix[0].gpus: jobs of this class can never "
            "start: they need 128 Worker pods of cpu 64000m, memory 512Gi, gpu 8, but the whole "
            "cluster holds at most 4 of them at once");
}

// Issue 8: `placement: bogus` in a file was blamed on --policy, with no position.
TEST(ScenarioLoader, UnknownPlacementIsBlamedOnTheFile) {
  EXPECT_THAT(error_of(kBase + "  policy: {placement: bogus}\n"),
              StartsWith("t.yaml:20:23: spec.policy.placement: unknown placement policy 'bogus'; "
                         "known: binpack, spread, topology"));
}

// A cluster from a trace: the loader hands the reference to the caller's trace reader and
// applies the scenario's nic and memory figures to what the trace left at zero.
TEST(ScenarioLoader, ClusterFromATraceGetsTheScenarioFigures) {
  const std::string csv =
      std::string(GANTRY_SOURCE_DIR) + "/scenarios/data/pai-2020/pai_machine_spec.csv";
  const std::string text =
      "apiVersion: gantry.dev/v1\nkind: Scenario\nmetadata: {name: t}\nspec:\n"
      "  cluster:\n"
      "    trace: {format: pai-machines, file: " +
      csv +
      "}\n"
      "    nic: 200Gbps\n"
      "    memory: 1Ti\n"
      "  workload:\n"
      "    jobs:\n"
      "    - {name: j, submit: 0s, framework: TensorFlow, roles: [{kind: Worker, resources: {cpu: "
      "\"1\", memory: 1Gi, gpu: 1}}],"
      " work: {steps: 1, stepCompute: 1s, gradientSize: 0}}\n";
  std::string seen_format, seen_path;
  const ClusterTraceLoader fake = [&](const TraceRef& ref) {
    seen_format = ref.format;
    seen_path = ref.path;
    Topology t;
    t.gpus = GpuCatalog::with_defaults();
    NodeClass c;
    c.name = "gpu";
    c.capacity = Resources{8'000, 0, 2};  // no memory in the trace
    c.gpu_type = t.gpus.find("T4");
    c.island_size = 2;
    c.island_link = IslandLink::kPCIe;
    t.classes.push_back(c);
    t.racks.push_back("r");
    t.nodes.push_back(NodeInfo{"n", 0, 0});
    return t;
  };
  const ScenarioSpec s = load_scenario_text(text, "t.yaml", {.topology = fake});
  EXPECT_EQ(seen_format, "pai-machines");
  EXPECT_EQ(seen_path, csv);
  ASSERT_EQ(s.topology.classes.size(), 1u);
  EXPECT_EQ(s.topology.classes[0].nic_bytes_per_s, 25e9);  // 200 Gb/s
  EXPECT_EQ(s.topology.classes[0].capacity.memory_bytes, 1ll << 40);
}

TEST(ScenarioLoader, TraceOnlyFieldsNeedATrace) {
  EXPECT_EQ(error_of(with("  cluster:\n", "  cluster:\n    nic: 100Gbps\n")),
            "t.yaml:6:10: spec.cluster.nic: nic applies to a cluster read from a trace; give "
            "each node class its own");
}

}  // namespace scenario_loader_test
}  // namespace gantry
