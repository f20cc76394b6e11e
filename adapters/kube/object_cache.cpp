#include "adapters/kube/object_cache.hpp"

#include "adapters/kube/watch_event.hpp"

namespace gantry::kube {

// Objects are kept as CBOR (RFC 8949): a parsed nlohmann::json document of a Pod takes about
// ten times the bytes of its text (a tree node, a key and a value per field), the encoded form
// a little less than the text (bench/kube_informer_memory.cpp).
ObjectCache::Bytes ObjectCache::encode(const nlohmann::json& object) {
  return nlohmann::json::to_cbor(object);
}
nlohmann::json ObjectCache::decode(const Bytes& bytes) { return nlohmann::json::from_cbor(bytes); }

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
  return decode(it->second);
}

std::vector<nlohmann::json> ObjectCache::list() const {
  std::lock_guard lock(mutex_);
  std::vector<nlohmann::json> out;
  out.reserve(objects_.size());
  for (const auto& [key, object] : objects_) out.push_back(decode(object));
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
  Bytes bytes = encode(object);
  std::lock_guard lock(mutex_);
  auto [it, inserted] = objects_.try_emplace(key);
  std::optional<nlohmann::json> previous;
  if (!inserted) previous = decode(it->second);
  it->second = std::move(bytes);
  return previous;
}

std::optional<nlohmann::json> ObjectCache::erase(const std::string& key) {
  std::lock_guard lock(mutex_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  std::optional<nlohmann::json> previous = decode(it->second);
  objects_.erase(it);
  return previous;
}

std::map<std::string, nlohmann::json> ObjectCache::replace(
    std::map<std::string, nlohmann::json> objects) {
  std::map<std::string, Bytes> encoded;
  for (auto& [key, object] : objects) encoded.emplace_hint(encoded.end(), key, encode(object));
  std::lock_guard lock(mutex_);
  objects_.swap(encoded);
  std::map<std::string, nlohmann::json> previous;
  for (auto& [key, bytes] : encoded) previous.emplace_hint(previous.end(), key, decode(bytes));
  return previous;
}

std::map<std::string, ObjectCache::Bytes> ObjectCache::replace_encoded(
    std::map<std::string, Bytes> objects) {
  std::lock_guard lock(mutex_);
  objects_.swap(objects);
  return objects;
}

std::optional<ObjectCache::Bytes> ObjectCache::get_encoded(const std::string& key) const {
  std::lock_guard lock(mutex_);
  const auto it = objects_.find(key);
  if (it == objects_.end()) return std::nullopt;
  return it->second;
}

}  // namespace gantry::kube
