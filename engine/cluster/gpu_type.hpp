#pragma once
// GPU models and their default figures.
//
// relative_compute is the dense BF16/FP16 tensor-core peak relative to the A100 (312 TFLOPS = 1.0).
// Training speed-ups in practice are lower than peak ratios; scenarios may override the figure.
// Bandwidths are per direction, in bytes per second. Each default names its source.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gantry {

struct GpuType {
  std::string name;  // catalog key, e.g. "A100-80G"
  int64_t memory_bytes = 0;
  double relative_compute = 1.0;  // A100 = 1.0
  double nvlink_bytes_per_s = 0;  // per GPU, per direction; 0 if the model has no NVLink
  double pcie_bytes_per_s = 0;    // host link per direction
  std::string source;             // where the figures come from
};

// Index of a GPU type in a GpuCatalog.
using GpuTypeId = int;

class GpuCatalog {
 public:
  // A100-80G, H100-80G, H800, A10, T4, V100, L40S with datasheet figures.
  static GpuCatalog with_defaults();

  // Adds or replaces (same name) a type; returns its id.
  GpuTypeId add(GpuType type);
  // -1 if unknown. Names compare case-insensitively.
  GpuTypeId find(std::string_view name) const;
  const GpuType& at(GpuTypeId id) const { return types_.at(static_cast<size_t>(id)); }
  const std::vector<GpuType>& types() const { return types_; }
  size_t size() const { return types_.size(); }

 private:
  std::vector<GpuType> types_;
};

}  // namespace gantry
