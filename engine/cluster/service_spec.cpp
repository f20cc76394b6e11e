#include "engine/cluster/service_spec.hpp"

#include <cassert>
#include <cctype>

namespace gantry {

const char* to_string(AutoscalerKind k) {
  switch (k) {
    case AutoscalerKind::kKpa:
      return "KPA";
    case AutoscalerKind::kHpa:
      return "HPA";
    case AutoscalerKind::kNone:
      return "none";
  }
  return "?";
}

const char* to_string(HpaMetric m) {
  switch (m) {
    case HpaMetric::kGpu:
      return "gpu";
    case HpaMetric::kCpu:
      return "cpu";
    case HpaMetric::kQps:
      return "qps";
  }
  return "?";
}

std::string capacity_key_share(const Resources& r) {
  if (r.gpu_milli > 0) {
    // m / 1000 with three decimals, trailing zeros dropped: 500 → "0.5", 250 → "0.25".
    assert(r.gpu_milli < kMilliPerGpu && r.gpus == 0);  // resources.hpp: one spelling each
    std::string digits = std::to_string(r.gpu_milli);
    digits.insert(0, 3 - digits.size(), '0');
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    std::string out = "@0.";  // appended, not "@0." + digits: GCC 12's false -Wrestrict
    out += digits;
    return out;
  }
  if (r.gpus >= 2) {
    std::string out = "x";
    out += std::to_string(r.gpus);
    return out;
  }
  return "";
}

std::string capacity_key_share(const std::string& key) {
  if (const size_t at = key.rfind('@'); at != std::string::npos) return key.substr(at);
  // A trailing "x<digits>" after a non-empty model name.
  size_t i = key.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(key[i - 1]))) --i;
  if (i < key.size() && i >= 2 && key[i - 1] == 'x') return key.substr(i - 1);
  return "";
}

std::string capacity_key(const std::string& gpu_type, const Resources& r) {
  return gpu_type + capacity_key_share(r);
}

const ReplicaCapacity* ServiceSpec::capacity_for(const PredictorSpec& p) const {
  if (!p.gpu_type.empty()) {
    const std::string key = capacity_key(p.gpu_type, p.resources);
    for (const ReplicaCapacity& c : capacity) {
      if (c.key == key) return &c;
    }
    return nullptr;
  }
  const std::string share = capacity_key_share(p.resources);
  for (const ReplicaCapacity& c : capacity) {
    if (capacity_key_share(c.key) == share && c.key.size() > share.size()) return &c;
  }
  return nullptr;
}

}  // namespace gantry
