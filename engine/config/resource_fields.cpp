#include "engine/config/resource_fields.hpp"

#include <string>
#include <string_view>

#include "engine/config/quote.hpp"
#include "engine/config/units.hpp"

namespace gantry {

int64_t read_cpu(const ConfigNode& n) { return n.as_cpu_milli(kMaxCpuMilli); }

int64_t read_memory(const ConfigNode& n) { return n.as_bytes(kMaxMemory); }

void read_gpu(const ConfigNode& n, Resources& r) {
  constexpr std::string_view kWhat =
      "a GPU count such as 1 or 2, or a share of one GPU below 1 such as 0.5";
  const std::string text = n.as_string();
  // parse_cpu_milli reads exactly "number with at most 3 decimals" into milli units; its own
  // "500m" spelling is refused so a GPU request has one spelling.
  Result<int64_t> milli = parse_cpu_milli(text);
  if (!milli || text.empty() || text.back() == 'm')
    n.fail("expected " + std::string(kWhat) + ", got " + quote_for_message(text));
  const int64_t m = milli.value();
  if (m % kMilliPerGpu == 0) {
    if (m / kMilliPerGpu > kMaxGpusPerPod)
      n.fail("at most " + std::to_string(kMaxGpusPerPod) + " GPUs per pod, got " + text);
    r.gpus = static_cast<int32_t>(m / kMilliPerGpu);
    r.gpu_milli = 0;
  } else if (m < kMilliPerGpu) {
    r.gpus = 0;
    r.gpu_milli = static_cast<int32_t>(m);
  } else {
    n.fail("expected " + std::string(kWhat) + ", got " + quote_for_message(text) +
           " (a share is of one GPU; ask for whole GPUs above 1)");
  }
}

}  // namespace gantry
