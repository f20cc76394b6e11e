#include "adapters/kube/object_cache.hpp"

#include "adapters/kube/watch_event.hpp"

namespace gantry::kube {

std::string cache_key(const std::string& ns, const std::string& name) {
  return ns.empty() ? name : ns + "/" + name;
}

std::string cache_key_of(const nlohmann::json& object) {
  return cache_key(namespace_of(object), name_of(object));
}

std::optional<nlohmann::json> ObjectCache::get(const std::string& ns,
                                               const std::string& name) const {
  return get(cache_key(ns, name));
}

std::optional<nlohmann::json> ObjectCache::get(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  return it->second;
}

std::vector<nlohmann::json> ObjectCache::list() const {
  std::lock_guard lock(mutex_);
  std::vector<nlohmann::json> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(object);
  return out;
}

std::vector<std::string> ObjectCache::keys() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  out.reserve(objects_.size());
  for (const auto& entry : objects_) out.push_back(entry.first);
  return out;
}

size_t ObjectCache::size() const {
  std::lock_guard lock(mutex_);
  return objects_.size();
}

std::optional<nlohmann::json> ObjectCache::set(const std::string& key, nlohmann::json object) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = objects_.try_emplace(key);
  std::optional<nlohmann::json> previous;
  if (!inserted) previous = std::move(it->second);
  it->second = std::move(object);
  return previous;
}

std::optional<nlohmann::json> ObjectCache::erase(const std::string& key) {
  std::lock_guard lock(mutex_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  std::optional<nlohmann::json> previous = std::move(it->second);
  objects_.erase(it);
  return previous;
}

std::map<std::string, nlohmann::json> ObjectCache::replace(
    std::map<std::string, nlohmann::json> objects) {
  std::lock_guard lock(mutex_);
  objects_.swap(objects);
  return objects;
}

}  // namespace gantry::kube
