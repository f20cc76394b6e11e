// The failure model's data and helpers (sim/fault_spec.hpp): the Llama 3 preset's figures,
// worked out by hand from the paper, GPU model matching and the Weibull mean.

#include "sim/fault_spec.hpp"

#include <gtest/gtest.h>

#include "sim/fault_event.hpp"

namespace gantry {
namespace {

constexpr double kDayMicros = 86'400e6;

TEST(FaultSpec, Llama3GpuProcess) {
  const std::vector<FailureProcessSpec> p = llama3_h100_processes();
  ASSERT_EQ(p.size(), 2u);
  const FailureProcessSpec& gpu = p[0];
  EXPECT_EQ(gpu.component, FailureComponent::kGpu);
  EXPECT_EQ(gpu.gpu_model, "H100");
  EXPECT_EQ(gpu.cause, "GPU");
  EXPECT_EQ(gpu.time_to_failure.kind, TimeToFailure::Kind::kExponential);
  // Dubey et al. 2024, §3.3.4: 419 interruptions in 54 days on 16,384 GPUs, 58.7 % GPU issues.
  // 0.587 × 419 = 245.953 failures; 54 × 16,384 = 884,736 GPU-days;
  // 884,736 / 245.953 = 3,597.175 days = 310,795,926,050,912 µs (× 86,400 × 10^6).
  EXPECT_NEAR(static_cast<double>(gpu.time_to_failure.mtbf.micros()) / kDayMicros, 3597.175, 1e-3);
  EXPECT_NEAR(static_cast<double>(gpu.time_to_failure.mtbf.micros()), 310'795'926'050'912.0, 2.0);
  // Assumed (the paper gives no repair times): exponential, mean 6 h.
  EXPECT_EQ(gpu.repair.kind, RepairTime::Kind::kExponential);
  EXPECT_EQ(gpu.repair.mean, hours(6));
}

TEST(FaultSpec, Llama3NodeProcess) {
  const FailureProcessSpec node = llama3_h100_processes()[1];
  EXPECT_EQ(node.component, FailureComponent::kNode);
  EXPECT_EQ(node.gpu_model, "H100");
  EXPECT_EQ(node.cause, "node");
  EXPECT_EQ(node.time_to_failure.kind, TimeToFailure::Kind::kExponential);
  // The other 41.3 %: 0.413 × 419 = 173.047 failures over 54 × 2,048 = 110,592 node-days;
  // 110,592 / 173.047 = 639.0865 days = 55,217,072,818,367 µs.
  EXPECT_NEAR(static_cast<double>(node.time_to_failure.mtbf.micros()) / kDayMicros, 639.0865, 1e-4);
  EXPECT_NEAR(static_cast<double>(node.time_to_failure.mtbf.micros()), 55'217'072'818'367.0, 2.0);
  EXPECT_EQ(node.repair.kind, RepairTime::Kind::kExponential);
  EXPECT_EQ(node.repair.mean, hours(2));
}

TEST(FaultSpec, Llama3RatesGiveBackThePapersCount) {
  // Expected failures on the paper's cluster over its 54 days: units × days / MTBF.
  // 16,384 × 54 / 3,597.175 = 245.953 and 2,048 × 54 / 639.0865 = 173.047; sum 419.
  const std::vector<FailureProcessSpec> p = llama3_h100_processes();
  const double gpu_days = static_cast<double>(p[0].time_to_failure.mtbf.micros()) / kDayMicros;
  const double node_days = static_cast<double>(p[1].time_to_failure.mtbf.micros()) / kDayMicros;
  EXPECT_NEAR(16'384 * 54 / gpu_days, 245.953, 1e-3);
  EXPECT_NEAR(2'048 * 54 / node_days, 173.047, 1e-3);
  EXPECT_NEAR(16'384 * 54 / gpu_days + 2'048 * 54 / node_days, 419.0, 1e-3);
}

TEST(FaultSpec, GpuModelMatching) {
  EXPECT_TRUE(gpu_model_matches("H100", "H100"));
  EXPECT_TRUE(gpu_model_matches("H100", "H100-80G"));
  EXPECT_TRUE(gpu_model_matches("h100", "H100-SXM5-80GB"));
  EXPECT_TRUE(gpu_model_matches("H100-80g", "H100-80G"));
  EXPECT_FALSE(gpu_model_matches("H100", "H1000"));  // the prefix must end a word
  EXPECT_FALSE(gpu_model_matches("H100", "H800"));
  EXPECT_FALSE(gpu_model_matches("H100-80G", "H100"));
  EXPECT_FALSE(gpu_model_matches("H100", ""));  // a CPU-only node
  EXPECT_TRUE(gpu_model_matches("", ""));
  EXPECT_TRUE(gpu_model_matches("", "A100-80G"));
  EXPECT_TRUE(gpu_model_matches("H100-", "H100-80G"));  // a pattern ending in '-' is a prefix
}

TEST(FaultSpec, WeibullMean) {
  // Γ(1 + 1/0.5) = Γ(3) = 2! = 2: a scale of 10 h has a mean of 20 h.
  EXPECT_NEAR(static_cast<double>(weibull_mean(0.5, hours(10)).micros()),
              static_cast<double>(hours(20).micros()), 1.0);
  // Γ(1 + 1/1) = 1: shape 1 is the exponential, mean = scale.
  EXPECT_NEAR(static_cast<double>(weibull_mean(1.0, days(600)).micros()),
              static_cast<double>(days(600).micros()), 1.0);
  // Γ(1.5) = √π / 2 = 0.8862269: scale 100 h → mean 88.62269 h.
  EXPECT_NEAR(weibull_mean(2.0, hours(100)).seconds() / 3600, 88.62269, 1e-5);
  // Shape 0.7, mean 600 d: Γ(1 + 1/0.7) = Γ(2.428571) = 1.2658235, scale = 600 / 1.2658235
  // = 473.99973 d.
  EXPECT_NEAR(weibull_scale_for_mean(0.7, days(600)).seconds() / 86'400, 473.99973, 1e-5);
}

TEST(FaultSpec, Names) {
  EXPECT_STREQ(to_string(FailureComponent::kGpu), "gpu");
  EXPECT_STREQ(to_string(FailureComponent::kRack), "rack");
  EXPECT_STREQ(to_string(FaultAction::kGpuRepair), "gpu-repair");
  EXPECT_STREQ(to_string(FaultAction::kDrain), "drain");
}

}  // namespace
}  // namespace gantry
