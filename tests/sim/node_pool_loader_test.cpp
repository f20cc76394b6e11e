// spec.autoscaling (sim/node_pool_loader.hpp): parsed values, defaults, and every error's
// message with its line and column counted in the text below.

#include "sim/node_pool_loader.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/sim/scenario_text.hpp"

namespace gantry {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Classes a100x8 and cpu; racks r0 and r1.
Topology make_topology() {
  Topology t;
  t.gpus = GpuCatalog::with_defaults();
  NodeClass a100;
  a100.name = "a100x8";
  a100.capacity = Resources{96'000, 1ll << 40, 8};
  a100.gpu_type = t.gpus.find("A100-80G");
  a100.island_size = 8;
  NodeClass cpu;
  cpu.name = "cpu";
  cpu.capacity = Resources{64'000, 256ll << 30, 0};
  t.classes = {a100, cpu};
  t.racks = {"r0", "r1"};
  return t;
}

// Tests replace one line by one line, so the line numbers hold.
// clang-format off
const std::string kBase =
    "spec:\n"                                                           // 1
    "  autoscaling:\n"                                                  // 2
    "    expander: price\n"                                             // 3
    "    scaleDownUnneededTime: 5m\n"                                   // 4
    "    scaleDownDelayAfterAdd: 15m\n"                                 // 5
    "    pools:\n"                                                      // 6
    "    - name: spot-a100\n"                                           // 7
    "      nodeClass: a100x8\n"                                         // 8
    "      rack: r1\n"                                                  // 9
    "      minSize: 1\n"                                                // 10
    "      maxSize: 64\n"                                               // 11
    "      initial: 2\n"                                                // 12
    "      provisioning: {median: 3m, p90: 6m}\n"                       // 13
    "      pricePerHour: 12.3\n"                                        // 14
    "      capacityType: spot\n"                                        // 15
    "      reclaim: {meanTimeToReclaim: 20h, notice: 30s}\n"            // 16
    "      labels: {capacity: spot}\n"                                  // 17
    "      taints: [{key: spot, value: \"true\", effect: NoSchedule}]\n"  // 18
    "    - name: cpu\n"                                                 // 19
    "      nodeClass: cpu\n"                                            // 20
    "      rack: r0\n"                                                  // 21
    "      max: 10\n"                                                   // 22
    "      provisioning: 90s\n";                                        // 23
// clang-format on

std::string with(const std::string& from, const std::string& to) {
  return testing::replace_first(kBase, from, to);
}

struct Loaded {
  AutoscalingSpec spec;
  std::vector<std::string> errors;  // "file:line:col: path: message"
};

Loaded load(const std::string& text, const Topology& topology = make_topology(),
            bool topology_ok = true) {
  const ConfigNode root = parse_yaml_document(text, "s.yaml");
  const ConfigNode spec = ConfigMap(root, {"spec"}).required("spec");
  const ConfigNode node = ConfigMap(spec, {"autoscaling"}).required("autoscaling");
  ConfigErrors errors;
  Loaded out;
  out.spec = read_autoscaling(node, topology, topology_ok, errors);
  for (const InputError& e : errors.take()) out.errors.push_back(e.what());
  return out;
}

// The one error of `text`.
std::string error_of(const std::string& text) {
  const Loaded l = load(text);
  EXPECT_EQ(l.errors.size(), 1u) << ::testing::PrintToString(l.errors);
  return l.errors.empty() ? "" : l.errors[0];
}

TEST(NodePoolLoader, ReadsEveryKey) {
  const Loaded l = load(kBase);
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  const AutoscalerConfig& c = l.spec.autoscaler;
  EXPECT_EQ(c.expander, Expander::kPrice);
  EXPECT_EQ(c.scale_down_unneeded_time, minutes(5));
  EXPECT_EQ(c.scale_down_delay_after_add, minutes(15));
  ASSERT_EQ(l.spec.pools.size(), 2u);
  const NodePoolSpec& spot = l.spec.pools[0];
  EXPECT_EQ(spot.name, "spot-a100");
  EXPECT_EQ(spot.node_class, 0);
  EXPECT_EQ(spot.rack, 1);
  EXPECT_EQ(spot.min_nodes, 1);
  EXPECT_EQ(spot.max_nodes, 64);
  EXPECT_EQ(spot.initial_nodes, 2);
  EXPECT_EQ(spot.provisioning.kind, DelayDistribution::Kind::kLogNormal);
  EXPECT_EQ(spot.provisioning.median, minutes(3));
  EXPECT_EQ(spot.provisioning.p90, minutes(6));
  EXPECT_DOUBLE_EQ(spot.price_per_hour, 12.3);
  EXPECT_TRUE(spot.spot());
  EXPECT_EQ(spot.reclaim.mean_time_to_reclaim, hours(20));
  EXPECT_EQ(spot.reclaim.notice, seconds(30));
  EXPECT_EQ(spot.labels, (Labels{{"capacity", "spot"}}));
  EXPECT_THAT(spot.taints, ElementsAre(Taint{"spot", "true", TaintEffect::kNoSchedule}));
}

TEST(NodePoolLoader, Defaults) {
  // The cpu pool gives only name, class, rack, max and provisioning.
  const Loaded l = load(kBase);
  const NodePoolSpec& cpu = l.spec.pools[1];
  EXPECT_EQ(cpu.node_class, 1);
  EXPECT_EQ(cpu.rack, 0);
  EXPECT_EQ(cpu.min_nodes, 0);
  EXPECT_EQ(cpu.initial_nodes, 0);  // = min
  EXPECT_EQ(cpu.max_nodes, 10);
  EXPECT_EQ(cpu.provisioning.kind, DelayDistribution::Kind::kFixed);
  EXPECT_EQ(cpu.provisioning.fixed, seconds(90));
  EXPECT_EQ(cpu.price_per_hour, 0);
  EXPECT_EQ(cpu.capacity, CapacityType::kOnDemand);
  // Autoscaler settings default to Cluster Autoscaler's.
  const Loaded d = load(with("    expander: price\n", "    # default expander\n"));
  EXPECT_EQ(d.spec.autoscaler.expander, Expander::kLeastWaste);
  EXPECT_EQ(AutoscalerConfig{}.scale_down_unneeded_time, minutes(10));
  EXPECT_EQ(AutoscalerConfig{}.scale_down_delay_after_add, minutes(10));
}

TEST(NodePoolLoader, OtherSpellings) {
  // min/max instead of minSize/maxSize, EKS's SPOT, a uniform delay, nodePools for pools.
  std::string text = with("      minSize: 1\n", "      min: 1\n");
  text = testing::replace_first(text, "      maxSize: 64\n", "      max: 64\n");
  text = testing::replace_first(text, "capacityType: spot\n", "capacityType: SPOT\n");
  text = testing::replace_first(text, "{median: 3m, p90: 6m}", "{min: 2m, max: 5m}");
  text = testing::replace_first(text, "    pools:\n", "    nodePools:\n");
  const Loaded l = load(text);
  ASSERT_TRUE(l.errors.empty()) << l.errors[0];
  const NodePoolSpec& p = l.spec.pools[0];
  EXPECT_EQ(p.min_nodes, 1);
  EXPECT_EQ(p.max_nodes, 64);
  EXPECT_TRUE(p.spot());
  EXPECT_EQ(p.provisioning.kind, DelayDistribution::Kind::kUniform);
  EXPECT_EQ(p.provisioning.low, minutes(2));
  EXPECT_EQ(p.provisioning.high, minutes(5));
}

TEST(NodePoolLoader, RackMayBeLeftOutWithOneRack) {
  Topology t = make_topology();
  t.racks = {"only"};
  const Loaded l = load(with("      rack: r1\n", "      # no rack\n"), t);
  ASSERT_EQ(l.errors.size(), 1u);  // the cpu pool's rack r0 is unknown now
  EXPECT_EQ(l.spec.pools[0].rack, 0);
  // With two racks it is required: at the pool's map (line 7, column 7).
  EXPECT_EQ(error_of(with("      rack: r1\n", "      # no rack\n")),
            "s.yaml:7:7: spec.autoscaling.pools[0].rack: missing required field 'rack'; the "
            "cluster has 2 racks: r0, r1");
}

TEST(NodePoolLoader, UnknownNodeClassAndRack) {
  // "      nodeClass: " is 17 characters: the value starts at column 18; "      rack: " 12.
  EXPECT_EQ(error_of(with("nodeClass: a100x8\n", "nodeClass: a100x9\n")),
            "s.yaml:8:18: spec.autoscaling.pools[0].nodeClass: unknown node class 'a100x9'; "
            "known classes: a100x8, cpu (spec.cluster.nodeClasses)");
  EXPECT_EQ(error_of(with("rack: r1\n", "rack: r9\n")),
            "s.yaml:9:13: spec.autoscaling.pools[0].rack: unknown rack 'r9'; known racks: r0, r1");
}

TEST(NodePoolLoader, NamesAreNotCheckedAgainstABrokenCluster) {
  const Loaded l = load(with("nodeClass: a100x8\n", "nodeClass: a100x9\n"), make_topology(),
                        /*topology_ok=*/false);
  EXPECT_TRUE(l.errors.empty());
  EXPECT_EQ(l.spec.pools[0].node_class, -1);
  EXPECT_EQ(l.spec.pools[0].rack, -1);
}

TEST(NodePoolLoader, SizeErrors) {
  // "      minSize: " is 15 characters: values at column 16.
  EXPECT_EQ(error_of(with("      minSize: 1\n", "      minSize: 70\n")),
            "s.yaml:10:16: spec.autoscaling.pools[0].minSize: min (70) is above max (64)");
  EXPECT_EQ(error_of(with("      initial: 2\n", "      initial: 65\n")),
            "s.yaml:12:16: spec.autoscaling.pools[0].initial: initial (65) must be within "
            "min..max (1..64)");
  EXPECT_EQ(error_of(with("      initial: 2\n", "      initial: 0\n")),
            "s.yaml:12:16: spec.autoscaling.pools[0].initial: initial (0) must be within "
            "min..max (1..64)");
  EXPECT_EQ(error_of(with("      maxSize: 64\n", "      maxSize: 0\n")),
            "s.yaml:11:16: spec.autoscaling.pools[0].maxSize: expected at least 1 (a pool of 0 "
            "nodes never has any)");
  // Both spellings: the error at the alias (line 10); `initial` is not checked against a min
  // that could not be read.
  EXPECT_EQ(error_of(with("      initial: 2\n", "      min: 1\n")),
            "s.yaml:10:16: spec.autoscaling.pools[0].minSize: min and minSize (Cluster "
            "Autoscaler's spelling) are one setting; give one of them");
  EXPECT_EQ(error_of(with("      max: 10\n", "      # no max\n")),
            "s.yaml:19:7: spec.autoscaling.pools[1].max: missing required field 'max' (or "
            "maxSize): the most nodes the pool may have");
}

TEST(NodePoolLoader, PriceAndCapacityErrors) {
  // "      pricePerHour: " is 20 characters.
  EXPECT_EQ(error_of(with("pricePerHour: 12.3\n", "pricePerHour: -1\n")),
            "s.yaml:14:21: spec.autoscaling.pools[0].pricePerHour: a price cannot be negative, "
            "got '-1'");
  // "      reclaim: " is 15 characters.
  EXPECT_EQ(error_of(with("capacityType: spot\n", "capacityType: on-demand\n")),
            "s.yaml:16:16: spec.autoscaling.pools[0].reclaim: reclaim applies to spot pools "
            "only; this pool is on-demand (set capacityType: spot)");
  EXPECT_EQ(error_of(with("      reclaim: {meanTimeToReclaim: 20h, notice: 30s}\n",
                          "      # no reclaim\n")),
            "s.yaml:7:7: spec.autoscaling.pools[0].reclaim: missing required field 'reclaim': a "
            "spot pool says how often its nodes are taken back, such as {meanTimeToReclaim: 20h, "
            "notice: 2m}");
  EXPECT_THAT(error_of(with("capacityType: spot\n", "capacityType: preemptible\n")),
              HasSubstr("s.yaml:15:21: spec.autoscaling.pools[0].capacityType: "));
  EXPECT_THAT(error_of(with("{meanTimeToReclaim: 20h, notice: 30s}", "{notice: 30s}")),
              HasSubstr("s.yaml:16:16: spec.autoscaling.pools[0].reclaim.meanTimeToReclaim: "
                        "missing required field 'meanTimeToReclaim'"));
}

TEST(NodePoolLoader, ProvisioningErrors) {
  // "      provisioning: " is 20 characters: the map at column 21.
  EXPECT_EQ(error_of(with("{median: 3m, p90: 6m}", "{min: 3m, p90: 6m}")),
            "s.yaml:13:21: spec.autoscaling.pools[0].provisioning: expected a duration (fixed), "
            "{min, max} (uniform) or {median, p90} (log-normal), such as {median: 3m, p90: 6m}");
  // "      provisioning: {median: 3m, " is 33 characters: p90's value at column 39.
  EXPECT_EQ(error_of(with("{median: 3m, p90: 6m}", "{median: 3m, p90: 2m}")),
            "s.yaml:13:39: spec.autoscaling.pools[0].provisioning.p90: p90 (2m) is below the "
            "median (3m); the 90th percentile is at least the median");
  EXPECT_EQ(error_of(with("{median: 3m, p90: 6m}", "{min: 3m, max: 2m}")),
            "s.yaml:13:36: spec.autoscaling.pools[0].provisioning.max: max (2m) is below min "
            "(3m)");
}

TEST(NodePoolLoader, ListErrors) {
  // "    - name: " is 12 characters.
  EXPECT_EQ(error_of(with("    - name: cpu\n", "    - name: spot-a100\n")),
            "s.yaml:19:13: spec.autoscaling.pools[1].name: duplicate pool name 'spot-a100' (first "
            "used at line 7)");
  EXPECT_THAT(error_of(with("    expander: price\n", "    expander: random\n")),
              HasSubstr("s.yaml:3:15: spec.autoscaling.expander: "));
  EXPECT_THAT(error_of(with("      initial: 2\n", "      initialNodes: 2\n")),
              HasSubstr("s.yaml:12:7: spec.autoscaling.pools[0].initialNodes: unknown field"));
}

TEST(NodePoolLoader, EveryErrorIsReported) {
  std::string text = with("nodeClass: a100x8\n", "nodeClass: a100x9\n");
  text = testing::replace_first(text, "pricePerHour: 12.3\n", "pricePerHour: -1\n");
  text = testing::replace_first(text, "    - name: cpu\n", "    - name: spot-a100\n");
  const Loaded l = load(text);
  ASSERT_EQ(l.errors.size(), 3u);
  EXPECT_THAT(l.errors[0], HasSubstr("s.yaml:8:18:"));
  EXPECT_THAT(l.errors[1], HasSubstr("s.yaml:14:21:"));
  EXPECT_THAT(l.errors[2], HasSubstr("s.yaml:19:13:"));
}

}  // namespace
}  // namespace gantry
