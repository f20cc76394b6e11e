#include "engine/cluster/gpu_type.hpp"

#include <algorithm>
#include <cctype>

#include "engine/core/units.hpp"

namespace gantry {

namespace {
constexpr double kGBps = 1e9;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

GpuCatalog GpuCatalog::with_defaults() {
  GpuCatalog c;
  // NVLink figures are the datasheets' total bidirectional bandwidth halved (per direction).
  c.add({"A100-80G", 80 * kGiB, 1.0, 300 * kGBps, 32 * kGBps,
         "NVIDIA A100 datasheet (SXM4 80GB): BF16 dense 312 TFLOPS, NVLink 600 GB/s, PCIe Gen4"});
  c.add({"H100-80G", 80 * kGiB, 989.0 / 312.0, 450 * kGBps, 64 * kGBps,
         "NVIDIA H100 datasheet (SXM5): BF16 dense 989 TFLOPS, NVLink 900 GB/s, PCIe Gen5"});
  c.add({"H800", 80 * kGiB, 989.0 / 312.0, 200 * kGBps, 64 * kGBps,
         "NVIDIA H800 SXM5 product brief: H100 compute, NVLink 400 GB/s, PCIe Gen5"});
  c.add({"A10", 24 * kGiB, 125.0 / 312.0, 0, 32 * kGBps,
         "NVIDIA A10 datasheet: BF16 tensor 125 TFLOPS dense, 24GB GDDR6, PCIe Gen4, no NVLink"});
  c.add({"T4", 16 * kGiB, 65.0 / 312.0, 0, 16 * kGBps,
         "NVIDIA T4 datasheet: FP16 tensor 65 TFLOPS, 16GB GDDR6, PCIe Gen3, no NVLink"});
  c.add({"V100", 32 * kGiB, 125.0 / 312.0, 150 * kGBps, 16 * kGBps,
         "NVIDIA V100 datasheet (SXM2 32GB): FP16 tensor 125 TFLOPS, NVLink 300 GB/s, PCIe Gen3"});
  c.add({"L40S", 48 * kGiB, 362.0 / 312.0, 0, 32 * kGBps,
         "NVIDIA L40S datasheet: BF16 dense 362 TFLOPS, 48GB GDDR6, PCIe Gen4, no NVLink"});
  return c;
}

GpuTypeId GpuCatalog::add(GpuType type) {
  const GpuTypeId existing = find(type.name);
  if (existing >= 0) {
    types_[static_cast<size_t>(existing)] = std::move(type);
    return existing;
  }
  types_.push_back(std::move(type));
  return static_cast<GpuTypeId>(types_.size() - 1);
}

GpuTypeId GpuCatalog::find(std::string_view name) const {
  for (size_t i = 0; i < types_.size(); ++i)
    if (iequals(types_[i].name, name)) return static_cast<GpuTypeId>(i);
  return -1;
}

}  // namespace gantry
