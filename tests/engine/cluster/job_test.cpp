#include "engine/cluster/job.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

TEST(GpuModels, ParseSplitsOnBarsAndDropsBlanks) {
  EXPECT_EQ(parse_gpu_models("V100M16|V100M32"), (std::vector<std::string>{"V100M16", "V100M32"}));
  EXPECT_EQ(parse_gpu_models(" T4 | | P100 "), (std::vector<std::string>{"T4", "P100"}));
  EXPECT_TRUE(parse_gpu_models("").empty());
  EXPECT_TRUE(parse_gpu_models("|").empty());
}

TEST(GpuModels, AllowedModelsPreferTheListOverTheSingleName) {
  JobSpec j;
  EXPECT_TRUE(j.allowed_gpu_models().empty());  // any model
  j.gpu_type = "A100-80G";
  EXPECT_EQ(j.allowed_gpu_models(), (std::vector<std::string>{"A100-80G"}));
  j.gpu_types = {"V100M16", "V100M32"};
  EXPECT_EQ(j.allowed_gpu_models(), (std::vector<std::string>{"V100M16", "V100M32"}));
}

TEST(GpuModels, TotalRequestAddsSharesSeparately) {
  JobSpec j;
  j.roles.push_back(RoleSpec{RoleKind::kWorker, 3, Resources{1'000, 0, 0, 250}});
  j.roles.push_back(RoleSpec{RoleKind::kWorker, 1, Resources{1'000, 0, 2, 0}});
  // 3 × 250 = 750 milli of shares; 2 whole GPUs.
  EXPECT_EQ(j.total_request(), (Resources{4'000, 0, 2, 750}));
  EXPECT_EQ(j.total_gpus(), 2);
}

}  // namespace
}  // namespace gantry
