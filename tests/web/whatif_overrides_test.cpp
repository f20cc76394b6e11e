// What-if overrides on a scenario document: racks scaled by largest remainder to exactly the
// requested node count, GPU model and fabric replaced, refusals named.

#include "web/server/whatif_overrides.hpp"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace gantry::web {
namespace {

const char* kScenario = R"(apiVersion: gantry.dev/v1
kind: Scenario
metadata: {name: s}
spec:
  cluster:
    fabric: {kind: InfiniBand}
    nodeClasses:
    - {name: cpu, cpu: "64", memory: 256Gi}
    - {name: dgx, cpu: "128", memory: 1Ti, gpu: {type: A100-80G, count: 8}, nic: 200Gbps}
    racks:
    - {name: r1, class: dgx, nodes: 6}
    - {name: r2, class: dgx, nodes: 3}
    - {name: r3, class: cpu, nodes: 1}
)";

// 10 nodes → 20: one guaranteed per rack, 17 spare by 6:3:1 of 10: 10.2, 5.1, 1.7 → 10, 5, 1
// (16), the one left goes to the largest remainder (r3: 0.7): 11, 6, 3 nodes.
TEST(WhatIfOverrides, ScalesRacksToExactlyTheNodeCount) {
  const YAML::Node doc = YAML::Load(apply_overrides(kScenario, {.nodes = 20}));
  const YAML::Node racks = doc["spec"]["cluster"]["racks"];
  EXPECT_EQ(racks[0]["nodes"].as<int>(), 11);
  EXPECT_EQ(racks[1]["nodes"].as<int>(), 6);
  EXPECT_EQ(racks[2]["nodes"].as<int>(), 3);
}

TEST(WhatIfOverrides, ReplacesGpuModelAndFabric) {
  const YAML::Node doc =
      YAML::Load(apply_overrides(kScenario, {.gpu_type = "H100-80G", .fabric = "RoCE"}));
  EXPECT_EQ(doc["spec"]["cluster"]["fabric"]["kind"].as<std::string>(), "RoCE");
  EXPECT_EQ(doc["spec"]["cluster"]["nodeClasses"][1]["gpu"]["type"].as<std::string>(), "H100-80G");
  EXPECT_FALSE(doc["spec"]["cluster"]["nodeClasses"][0]["gpu"]) << "a CPU class stays without GPUs";
}

TEST(WhatIfOverrides, NoOverridesLeaveTheTextAsItWas) {
  EXPECT_EQ(apply_overrides(kScenario, {}), kScenario);
}

TEST(WhatIfOverrides, RefusalsNameTheOverride) {
  try {
    apply_overrides(kScenario, {.nodes = 2});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "overrides.nodes: at least one node per rack: 3 or more");
  }
  EXPECT_THROW(apply_overrides("spec: {cluster: {trace: {format: openb}}}", {.nodes = 5}),
               std::invalid_argument);
}

}  // namespace
}  // namespace gantry::web
