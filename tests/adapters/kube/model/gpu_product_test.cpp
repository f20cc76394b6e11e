// GPU models from NVIDIA GPU feature discovery's product label. The product strings are the
// ones the feature discovery writes on real nodes (nvidia.com/gpu.product values as published
// in NVIDIA's gpu-feature-discovery documentation and seen on DGX/HGX nodes).

#include "adapters/kube/model/gpu_product.hpp"

#include <gtest/gtest.h>

namespace gantry::kube {
namespace {

TEST(GpuProduct, MapsFeatureDiscoveryProductsToTheCatalog) {
  const GpuCatalog catalog = GpuCatalog::with_defaults();
  EXPECT_EQ(gpu_model_of_product("NVIDIA-A100-SXM4-80GB", catalog), "A100-80G");
  EXPECT_EQ(gpu_model_of_product("NVIDIA-H100-80GB-HBM3", catalog), "H100-80G");
  EXPECT_EQ(gpu_model_of_product("NVIDIA-A10", catalog), "A10") << "not A100";
  EXPECT_EQ(gpu_model_of_product("Tesla-T4", catalog), "T4");
  EXPECT_EQ(gpu_model_of_product("Tesla-V100-SXM2-32GB", catalog), "V100");
  EXPECT_EQ(gpu_model_of_product("NVIDIA-L40S", catalog), "L40S");
  EXPECT_EQ(gpu_model_of_product("h800", catalog), "H800") << "a catalog name as it is";
  EXPECT_EQ(gpu_model_of_product("NVIDIA-A100-SXM4-40GB", catalog), "")
      << "the catalog's A100 is the 80 GB one";
  EXPECT_EQ(gpu_model_of_product("", catalog), "");
}

TEST(GpuProduct, KubeletSimLabelsRoundTrip) {
  const GpuCatalog catalog = GpuCatalog::with_defaults();
  EXPECT_EQ(gpu_product_label("A100-80G"), "NVIDIA-A100-80GB");
  EXPECT_EQ(gpu_product_label("H800"), "NVIDIA-H800");
  for (const GpuType& t : catalog.types())
    EXPECT_EQ(gpu_model_of_product(gpu_product_label(t.name), catalog), t.name) << t.name;
}

}  // namespace
}  // namespace gantry::kube
