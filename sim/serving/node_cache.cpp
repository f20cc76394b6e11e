#include "sim/serving/node_cache.hpp"

#include <algorithm>

namespace gantry {

namespace {
int64_t key_of(int32_t node, int32_t item) {
  return (static_cast<int64_t>(node) << 32) | static_cast<uint32_t>(item);
}
}  // namespace

int32_t NodeCache::id_of(const std::string& item) {
  return ids_.try_emplace(item, static_cast<int32_t>(ids_.size())).first->second;
}

int64_t NodeCache::available_at(int32_t node, const std::string& item) const {
  const auto id = ids_.find(item);
  if (id == ids_.end()) return -1;
  const auto it = ready_at_.find(key_of(node, id->second));
  return it == ready_at_.end() ? -1 : it->second;
}

void NodeCache::put(int32_t node, const std::string& item, int64_t at_us) {
  auto [it, fresh] = ready_at_.try_emplace(key_of(node, id_of(item)), at_us);
  if (!fresh) it->second = std::min(it->second, at_us);
}

}  // namespace gantry
