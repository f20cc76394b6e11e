// spec.policy.elasticity (sim/scenario_loader.cpp): parsed values, defaults, and every error's
// message, with its line and column counted in the text below.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/scenario_loader.hpp"
#include "tests/sim/scenario_text.hpp"

namespace gantry {
namespace {

using ::testing::HasSubstr;

// clang-format off
const std::string kBase =
    "apiVersion: gantry.dev/v1\n"                                                               // 1
    "kind: Scenario\n"                                                                          // 2
    "metadata: {name: t}\n"                                                                     // 3
    "spec:\n"                                                                                   // 4
    "  cluster:\n"                                                                              // 5
    "    fabric: {kind: InfiniBand}\n"                                                          // 6
    "    storage: {bandwidth: 10GB/s}\n"                                                        // 7
    "    nodeClasses:\n"                                                                        // 8
    "    - {name: a, cpu: 64, memory: 512Gi, gpu: {type: A100-80G, count: 8}, nic: 400Gbps}\n"  // 9
    "    racks:\n"                                                                              // 10
    "    - {name: r1, class: a, nodes: 2}\n"                                                    // 11
    "  policy:\n"                                                                               // 12
    "    elasticity:\n"                                                                         // 13
    "      policy: goodput\n"                                                                   // 14
    "      interval: 10m\n"                                                                     // 15
    "      minGain: 600\n"                                                                      // 16
    "  workload:\n"                                                                             // 17
    "    jobs:\n"                                                                               // 18
    "    - name: j\n"                                                                           // 19
    "      submit: 0s\n"                                                                        // 20
    "      framework: PyTorch\n"                                                                // 21
    "      roles:\n"                                                                            // 22
    "      - {kind: Worker, replicas: 2, resources: {cpu: 8, memory: 64Gi, gpu: 8}}\n"          // 23
    "      work: {steps: 10, stepCompute: 1s, gradientSize: 1GB}\n";                            // 24
// clang-format on

std::string with(const std::string& from, const std::string& to) {
  return testing::replace_first(kBase, from, to);
}
std::string error_of(const std::string& text) { return testing::load_error(text, "t.yaml"); }

TEST(ElasticityLoader, Values) {
  const ScenarioSpec s = load_scenario_text(kBase, "t.yaml");
  EXPECT_EQ(s.policy.elasticity.policies, std::vector<ElasticPolicy>{ElasticPolicy::kGoodput});
  EXPECT_EQ(s.policy.elasticity.interval, minutes(10));
  EXPECT_EQ(s.policy.elasticity.min_gain_gpu_seconds, 600);
}

// Without the block: none; without interval and minGain: 5 minutes and 0.
TEST(ElasticityLoader, Defaults) {
  const ScenarioSpec none = load_scenario_text(
      with("    elasticity:\n      policy: goodput\n      interval: 10m\n      minGain: 600\n",
           "    placement: binpack\n"),
      "t.yaml");
  EXPECT_FALSE(none.policy.elasticity.enabled());
  const ScenarioSpec bare =
      load_scenario_text(with("      interval: 10m\n      minGain: 600\n", ""), "t.yaml");
  EXPECT_TRUE(bare.policy.elasticity.has(ElasticPolicy::kGoodput));
  EXPECT_EQ(bare.policy.elasticity.interval, minutes(5));
  EXPECT_EQ(bare.policy.elasticity.min_gain_gpu_seconds, 0);
  for (const char* name : {"none", "scale-out-idle", "shrink-to-admit"}) {
    const ScenarioSpec s =
        load_scenario_text(with("      policy: goodput\n      interval: 10m\n      minGain: 600\n",
                                std::string("      policy: ") + name + "\n"),
                           "t.yaml");
    const std::vector<ElasticPolicy>& on = s.policy.elasticity.policies;
    EXPECT_EQ(on.empty() ? std::string("none") : std::string(to_string(on.front())), name);
  }
}

// Several policies at once, in the order a cycle runs them whatever the file's order.
TEST(ElasticityLoader, AListOfPolicies) {
  const ScenarioSpec s = load_scenario_text(
      with("      policy: goodput\n", "      policy: [goodput, scale-out-idle, shrink-to-admit]\n"),
      "t.yaml");
  EXPECT_EQ(s.policy.elasticity.policies,
            (std::vector<ElasticPolicy>{ElasticPolicy::kShrinkToAdmit, ElasticPolicy::kScaleOutIdle,
                                        ElasticPolicy::kGoodput}));
  EXPECT_THAT(error_of(with("      policy: goodput\n", "      policy: [goodput, goodput]\n")),
              HasSubstr("t.yaml:14:25: spec.policy.elasticity.policy[1]: goodput is listed twice"));
  EXPECT_THAT(error_of(with("      policy: goodput\n", "      policy: [goodput, none]\n")),
              HasSubstr("spec.policy.elasticity.policy[1]: none turns elasticity off"));
}

// Columns: "      policy: " is 14 characters, "      interval: " 16, "      minGain: " 15. A
// missing policy is reported where the map starts (line 14, column 7, once the policy line is
// gone).
TEST(ElasticityLoader, Errors) {
  EXPECT_THAT(error_of(with("policy: goodput", "policy: Goodput")),
              HasSubstr("t.yaml:14:15: spec.policy.elasticity.policy: unknown elasticity policy "
                        "'Goodput'; known: none, scale-out-idle, shrink-to-admit, goodput"));
  EXPECT_THAT(error_of(with("minGain: 600", "minGane: 600")),
              HasSubstr("t.yaml:16:7: spec.policy.elasticity.minGane: unknown field 'minGane'; "
                        "expected one of: policy, interval, minGain"));
  EXPECT_THAT(error_of(with("interval: 10m", "interval: 0s")),
              HasSubstr("t.yaml:15:17: spec.policy.elasticity.interval:"));
  EXPECT_THAT(error_of(with("minGain: 600", "minGain: -1")),
              HasSubstr("t.yaml:16:16: spec.policy.elasticity.minGain:"));
  EXPECT_THAT(error_of(with("policy: goodput", "policy: shrink-to-admit")),
              HasSubstr("t.yaml:15:17: spec.policy.elasticity.interval: interval applies to policy "
                        "goodput only, not shrink-to-admit"));
  EXPECT_THAT(error_of(with("policy: goodput", "policy: shrink-to-admit")),
              HasSubstr("t.yaml:16:16: spec.policy.elasticity.minGain: minGain applies to policy "
                        "goodput only, not shrink-to-admit"));
  EXPECT_THAT(
      error_of(with("      policy: goodput\n", "")),
      HasSubstr("t.yaml:14:7: spec.policy.elasticity.policy: missing required field 'policy'"));
}

}  // namespace
}  // namespace gantry
