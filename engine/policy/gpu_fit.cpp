#include "engine/policy/gpu_fit.hpp"

#include <algorithm>

namespace gantry {

bool histogram_holds(const std::vector<int>& histogram, int gpus, int pods) {
  int64_t room = 0;
  for (size_t k = static_cast<size_t>(gpus); k < histogram.size(); ++k) {
    room +=
        static_cast<int64_t>(histogram[k]) * static_cast<int64_t>(k / static_cast<size_t>(gpus));
    if (room >= pods) return true;
  }
  return false;
}

GpuDemand GpuDemand::of(std::span<const Resources> requests) {
  GpuDemand d;
  for (const Resources& r : requests)
    if (r.gpus > 0 && r.gpus <= 64) {
      ++d.pods[static_cast<size_t>(r.gpus)];
      d.total += r.gpus;
    }
  return d;
}

bool GpuDemand::fits(const std::vector<int>& histogram, int free_gpus) const {
  if (free_gpus < total) return false;
  for (int g = 1; g <= 64; ++g)
    if (pods[static_cast<size_t>(g)] > 0 &&
        !histogram_holds(histogram, g, pods[static_cast<size_t>(g)]))
      return false;
  return true;
}

bool gang_could_fit(const Cluster& cluster, std::span<const Resources> pods,
                    const std::vector<GpuTypeId>& types) {
  const GpuDemand demand = GpuDemand::of(pods);
  if (demand.total == 0) return true;
  const auto fits_type = [&](GpuTypeId t) {
    return demand.fits(cluster.free_gpu_histogram(t), cluster.free_gpus(t));
  };
  if (!types.empty()) return std::any_of(types.begin(), types.end(), fits_type);
  for (GpuTypeId t = 0; t < static_cast<GpuTypeId>(cluster.topology().gpus.size()); ++t)
    if (fits_type(t)) return true;
  return false;
}

}  // namespace gantry
