// ServiceSpec's capacity table keys (engine/cluster/service_spec.hpp).

#include "engine/cluster/service_spec.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace service_spec_test {

Resources whole(int gpus) {
  Resources r;
  r.gpus = gpus;
  return r;
}

Resources share(int milli) {
  Resources r;
  r.gpu_milli = milli;
  return r;
}

PredictorSpec predictor(const std::string& gpu_type, const Resources& r) {
  PredictorSpec p;
  p.name = "v1";
  p.gpu_type = gpu_type;
  p.resources = r;
  return p;
}

ServiceSpec with_capacity(const std::vector<std::string>& keys) {
  ServiceSpec s;
  for (const std::string& k : keys) s.capacity.push_back(ReplicaCapacity{k, 100, 1, 0});
  return s;
}

TEST(CapacityKey, WholeGpuShareAndSeveralGpus) {
  EXPECT_EQ(capacity_key("A10", whole(1)), "A10");
  EXPECT_EQ(capacity_key("A10", whole(2)), "A10x2");
  EXPECT_EQ(capacity_key("H100-80G", whole(8)), "H100-80Gx8");
  EXPECT_EQ(capacity_key("T4", Resources{}), "T4");
}

TEST(CapacityKey, ShareInShortestDecimal) {
  // milli / 1000 with trailing zeros dropped.
  EXPECT_EQ(capacity_key("A10", share(500)), "A10@0.5");
  EXPECT_EQ(capacity_key("A10", share(250)), "A10@0.25");
  EXPECT_EQ(capacity_key("A10", share(125)), "A10@0.125");
  EXPECT_EQ(capacity_key("A10", share(100)), "A10@0.1");
  EXPECT_EQ(capacity_key("A10", share(5)), "A10@0.005");
  EXPECT_EQ(capacity_key("A10", share(999)), "A10@0.999");
}

TEST(CapacityKey, SharePartOfATableKey) {
  EXPECT_EQ(capacity_key_share("A10@0.5"), "@0.5");
  EXPECT_EQ(capacity_key_share("A10x2"), "x2");
  EXPECT_EQ(capacity_key_share("A10"), "");
  EXPECT_EQ(capacity_key_share("H100-80G"), "");
  EXPECT_EQ(capacity_key_share("x2"), "");  // no model name before the x: a model called x2
}

TEST(CapacityFor, ByGpuTypeAndShare) {
  const ServiceSpec s = with_capacity({"A10", "A10@0.5", "T4@0.5", "A10x2"});
  EXPECT_EQ(s.capacity_for(predictor("A10", whole(1)))->key, "A10");
  EXPECT_EQ(s.capacity_for(predictor("A10", share(500)))->key, "A10@0.5");
  EXPECT_EQ(s.capacity_for(predictor("T4", share(500)))->key, "T4@0.5");
  EXPECT_EQ(s.capacity_for(predictor("A10", whole(2)))->key, "A10x2");
  EXPECT_EQ(s.capacity_for(predictor("A10", share(250))), nullptr);
  EXPECT_EQ(s.capacity_for(predictor("L40S", whole(1))), nullptr);
  EXPECT_EQ(s.capacity_for(predictor("T4", whole(1))), nullptr);  // "T4@0.5" is not a whole T4
}

TEST(CapacityFor, WithoutGpuTypeTheFirstEntryOfTheSameShare) {
  // Written order decides: T4@0.5 comes before A10@0.5.
  const ServiceSpec s = with_capacity({"A10x2", "T4@0.5", "A10@0.5", "A10"});
  EXPECT_EQ(s.capacity_for(predictor("", share(500)))->key, "T4@0.5");
  EXPECT_EQ(s.capacity_for(predictor("", whole(1)))->key, "A10");
  EXPECT_EQ(s.capacity_for(predictor("", whole(2)))->key, "A10x2");
  EXPECT_EQ(s.capacity_for(predictor("", share(250))), nullptr);
}

}  // namespace service_spec_test
}  // namespace gantry
