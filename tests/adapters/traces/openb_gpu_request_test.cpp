#include "adapters/traces/openb_gpu_request.hpp"

#include <gtest/gtest.h>

namespace gantry {
namespace {

// The trace's columns (num_gpu, gpu_milli per GPU) against the model's one spelling; the
// combinations are those the openb README lists (scenarios/data/README.md).
TEST(OpenbGpuRequest, MapsToWholeGpusOrShares) {
  EXPECT_EQ(openb_gpu_request(0, 0), (Resources{0, 0, 0, 0}));
  EXPECT_EQ(openb_gpu_request(1, 460), (Resources{0, 0, 0, 460}));
  EXPECT_EQ(openb_gpu_request(1, 1000), (Resources{0, 0, 1, 0}));  // a whole GPU
  EXPECT_EQ(openb_gpu_request(8, 1000), (Resources{0, 0, 8, 0}));
  EXPECT_EQ(openb_gpu_request(64, 1000), (Resources{0, 0, 64, 0}));
}

TEST(OpenbGpuRequest, CombinationsTheModelCannotExpressHaveNoMapping) {
  EXPECT_FALSE(openb_gpu_request(2, 500).has_value());    // shares of several GPUs
  EXPECT_FALSE(openb_gpu_request(0, 100).has_value());    // a share of no GPU
  EXPECT_FALSE(openb_gpu_request(1, 0).has_value());      // one GPU of nothing
  EXPECT_FALSE(openb_gpu_request(65, 1000).has_value());  // more than a node's 64-bit mask
}

}  // namespace
}  // namespace gantry
