#pragma once
// Typed reads of a Kubernetes object's JSON, for the parsers of kube_node.hpp and kube_pod.hpp:
// a field that is absent reads as empty (Kubernetes omits empty fields), a field of the wrong
// type or an unparseable value throws InputError naming the object ("Pod default/job-a-0")
// and the field's path ("spec.containers[0].resources.requests.cpu").
//
// Paths are dotted ("metadata.labels"); a map key that contains dots ("nvidia.com/gpu") is
// passed separately.
//
// Thread-safety: none needed (one object, one thread).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/cluster/node_labels.hpp"

namespace gantry::kube {

class ObjectFields {
 public:
  // `kind` names the object in errors ("Node", "Pod"); the object must outlive this reader.
  ObjectFields(const nlohmann::json& object, std::string kind);

  // metadata.name; an object without one is refused.
  const std::string& name() const { return name_; }
  // "Node gpu-1" or "Pod default/job-a-0": how errors name the object.
  const std::string& label() const { return label_; }

  // The value at `path`: a JSON null when absent.
  const nlohmann::json& at(const std::string& path) const;
  std::string string(const std::string& path) const;
  bool boolean(const std::string& path) const;
  std::optional<int64_t> integer(const std::string& path) const;
  Labels string_map(const std::string& path) const;
  // An array (empty when absent).
  const nlohmann::json& array(const std::string& path) const;
  // The quantity under key `key` of the object at `path` (e.g. "status.allocatable", "cpu"),
  // times `scale`, rounded up (quantity.hpp); 0 when absent.
  int64_t quantity(const std::string& path, const std::string& key, int64_t scale) const;
  // A quantity held in `json` (a member of the object) named `field` in errors.
  int64_t quantity_of(const nlohmann::json& json, const std::string& field, int64_t scale) const;
  std::vector<Taint> taints(const std::string& path) const;
  std::vector<Toleration> tolerations(const std::string& path) const;

  // The string member `key` of `object` (a part of this object at `field`); `fallback` when
  // absent or null.
  std::string member(const nlohmann::json& object, const char* key, const std::string& field,
                     const std::string& fallback = {}) const;

  // The object member `key` of `object`: null when `object` is null or the member absent.
  const nlohmann::json& member_object(const nlohmann::json& object, const char* key,
                                      const std::string& field) const;

  [[noreturn]] void fail(const std::string& field, const std::string& message) const;

 private:
  const nlohmann::json& object_;
  std::string name_;
  std::string label_;
};

}  // namespace gantry::kube
