#pragma once
// What nodes hold locally: container images (the kubelet's image cache) and model files (a
// Fluid-like dataset cache), each with the instant it became (or becomes) available, so a second
// replica landing on a node while the first is still downloading waits for that download
// instead of starting another. Capacity is not modelled: nothing is evicted (image garbage
// collection and cache eviction are left out; a stated limit in sim/serving/README.md).

#include <cstdint>
#include <string>
#include <unordered_map>

namespace gantry {

class NodeCache {
 public:
  // When `item` is (or will be) on `node`, or -1 if it is not and nothing is fetching it.
  int64_t available_at(int32_t node, const std::string& item) const;
  // Records that `item` is on `node` from `at_us` (keeps the earlier time if already known).
  void put(int32_t node, const std::string& item, int64_t at_us);

 private:
  int32_t id_of(const std::string& item);
  std::unordered_map<std::string, int32_t> ids_;
  std::unordered_map<int64_t, int64_t> ready_at_;  // (node << 32 | item id) → µs
};

}  // namespace gantry
