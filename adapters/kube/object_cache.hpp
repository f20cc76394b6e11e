#pragma once
// The informer's local copy of one resource: objects by "namespace/name" ("name" for cluster-
// scoped kinds), which the live world's policies read instead of asking the API server.
//
// Thread-safety: every method locks; readers get copies, so what they hold never changes
// under them. The informer thread is the only writer.
//
// | operation      | cost                     |
// |----------------|--------------------------|
// | get, set, erase| O(log n) + a JSON copy   |
// | list, keys     | O(n) copies              |
// | replace        | O(n log n)               |

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace gantry::kube {

// "ns/name", or "name" when ns is empty.
std::string cache_key(const std::string& ns, const std::string& name);
// The key of an object from its metadata.
std::string cache_key_of(const nlohmann::json& object);

class ObjectCache {
 public:
  std::optional<nlohmann::json> get(const std::string& ns, const std::string& name) const;
  std::optional<nlohmann::json> get(const std::string& key) const;
  // Every object, in key order.
  std::vector<nlohmann::json> list() const;
  std::vector<std::string> keys() const;
  size_t size() const;

  // Writer side (the informer thread). set() returns the previous object, if any.
  std::optional<nlohmann::json> set(const std::string& key, nlohmann::json object);
  std::optional<nlohmann::json> erase(const std::string& key);
  // Swaps in a whole new content, returning the old one.
  std::map<std::string, nlohmann::json> replace(std::map<std::string, nlohmann::json> objects);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, nlohmann::json> objects_;  // guarded by mutex_
};

}  // namespace gantry::kube
