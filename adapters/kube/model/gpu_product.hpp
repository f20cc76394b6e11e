#pragma once
// The GPU model of a Kubernetes node, from the label NVIDIA's GPU feature discovery writes
// (`nvidia.com/gpu.product`, e.g. "NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3",
// "Tesla-T4"), to the name of a model in Gantry's GPU catalog ("A100-80G", "H100-80G", "T4").
// The simulated kubelet (`gantry kubelet-sim`) writes product strings of the same form
// (gpu_product_label()), so the two worlds meet on the same catalog names.
//
// Thread-safety: pure functions.

#include <string>
#include <string_view>

#include "engine/cluster/gpu_type.hpp"

namespace gantry::kube {

inline constexpr std::string_view kGpuProductLabel = "nvidia.com/gpu.product";
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";

// The catalog name for a product label value: the value itself when the catalog knows it
// (case-insensitively), else the catalog model whose name's parts all appear in the product
// string (A100 + 80G matches "NVIDIA-A100-SXM4-80GB"), the longest such name winning; "" if
// none does.
std::string gpu_model_of_product(std::string_view product, const GpuCatalog& catalog);

// The product label value kubelet-sim writes for a catalog model: "NVIDIA-<name>" with the
// memory spelled as the feature discovery does ("80G" -> "80GB"): "NVIDIA-A100-80GB".
std::string gpu_product_label(std::string_view model);

}  // namespace gantry::kube
