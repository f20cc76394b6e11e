#pragma once
// The informer's local copy of one resource: objects by "namespace/name" ("name" for cluster-
// scoped kinds), which the live world's policies read instead of asking the API server.
//
// Thread-safety: every method locks; readers get copies, so what they hold never changes
// under them. The informer thread is the only writer.
//
// | operation      | cost                     |
// |----------------|--------------------------|
// | get, set, erase| O(log n) + decoding one object |
// | list, keys     | O(n) decodings           |
// | replace        | O(n log n) + O(n) codings |
//
// Objects are stored encoded (CBOR), not as parsed documents: 100,000 pods fit in a tenth of
// the memory (bench/RESULTS.md, issue #11).

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
  using Bytes = std::vector<std::uint8_t>;
  // How objects are kept (CBOR, RFC 8949).
  static Bytes encode(const nlohmann::json& object);
  static nlohmann::json decode(const Bytes& bytes);

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
  // The same with objects already encoded; returns the encoded objects it held.
  std::map<std::string, Bytes> replace_encoded(std::map<std::string, Bytes> objects);
  // The encoded object, or nullopt.
  std::optional<Bytes> get_encoded(const std::string& key) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, Bytes> objects_;  // guarded by mutex_; CBOR, see object_cache.cpp
};

}  // namespace gantry::kube
