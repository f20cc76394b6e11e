#include "adapters/kube/model/object_fields.hpp"

#include "adapters/kube/model/quantity.hpp"
#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

const nlohmann::json kNull = nullptr;
const nlohmann::json kEmptyArray = nlohmann::json::array();

const char* type_name(const nlohmann::json& j) { return j.type_name(); }

}  // namespace

std::string ObjectFields::member(const nlohmann::json& object, const char* key,
                                 const std::string& field, const std::string& fallback) const {
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_string())
    fail(field + "." + key, std::string("expected a string, got ") + type_name(*it));
  return it->get<std::string>();
}

const nlohmann::json& ObjectFields::member_object(const nlohmann::json& object, const char* key,
                                                  const std::string& field) const {
  if (object.is_null()) return kNull;
  if (!object.is_object()) fail(field, std::string("expected an object, got ") + type_name(object));
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return kNull;
  if (!it->is_object())
    fail(field + "." + key, std::string("expected an object, got ") + type_name(*it));
  return *it;
}

namespace {

std::optional<TaintEffect> effect_of(const std::string& s) {
  if (s == "NoSchedule") return TaintEffect::kNoSchedule;
  if (s == "PreferNoSchedule") return TaintEffect::kPreferNoSchedule;
  if (s == "NoExecute") return TaintEffect::kNoExecute;
  return std::nullopt;
}

}  // namespace

ObjectFields::ObjectFields(const nlohmann::json& object, std::string kind) : object_(object) {
  label_ = kind;
  if (!object_.is_object())
    fail("", "expected a JSON object, got " + std::string(type_name(object_)));
  name_ = string("metadata.name");
  const std::string ns = string("metadata.namespace");
  label_ = kind + " " + (ns.empty() ? "" : ns + "/") + name_;
  if (name_.empty()) fail("metadata.name", "missing");
}

const nlohmann::json& ObjectFields::at(const std::string& path) const {
  const nlohmann::json* cur = &object_;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = path.find('.', start);
    const std::string key =
        path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object()) return kNull;
    const auto it = cur->find(key);
    if (it == cur->end()) return kNull;
    cur = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return *cur;
}

std::string ObjectFields::string(const std::string& path) const {
  const nlohmann::json& j = at(path);
  if (j.is_null()) return {};
  if (!j.is_string()) fail(path, std::string("expected a string, got ") + type_name(j));
  return j.get<std::string>();
}

bool ObjectFields::boolean(const std::string& path) const {
  const nlohmann::json& j = at(path);
  if (j.is_null()) return false;
  if (!j.is_boolean()) fail(path, std::string("expected true or false, got ") + type_name(j));
  return j.get<bool>();
}

std::optional<int64_t> ObjectFields::integer(const std::string& path) const {
  const nlohmann::json& j = at(path);
  if (j.is_null()) return std::nullopt;
  if (!j.is_number_integer()) fail(path, std::string("expected an integer, got ") + type_name(j));
  return j.get<int64_t>();
}

Labels ObjectFields::string_map(const std::string& path) const {
  const nlohmann::json& j = at(path);
  Labels out;
  if (j.is_null()) return out;
  if (!j.is_object()) fail(path, std::string("expected a map of strings, got ") + type_name(j));
  for (const auto& [k, v] : j.items()) {
    if (!v.is_string()) fail(path + "." + k, std::string("expected a string, got ") + type_name(v));
    out.emplace(k, v.get<std::string>());
  }
  return out;
}

const nlohmann::json& ObjectFields::array(const std::string& path) const {
  const nlohmann::json& j = at(path);
  if (j.is_null()) return kEmptyArray;
  if (!j.is_array()) fail(path, std::string("expected a list, got ") + type_name(j));
  return j;
}

int64_t ObjectFields::quantity(const std::string& path, const std::string& key,
                               int64_t scale) const {
  const nlohmann::json& holder = at(path);
  if (holder.is_null()) return 0;
  if (!holder.is_object()) fail(path, std::string("expected a map, got ") + type_name(holder));
  const auto it = holder.find(key);
  if (it == holder.end()) return 0;
  return quantity_of(*it, path + "." + key, scale);
}

int64_t ObjectFields::quantity_of(const nlohmann::json& j, const std::string& field,
                                  int64_t scale) const {
  // The API server writes quantities as strings; a client may send a plain number.
  std::string text;
  if (j.is_string()) {
    text = j.get<std::string>();
  } else if (j.is_number_integer()) {
    text = std::to_string(j.get<int64_t>());
  } else {
    fail(field, std::string("expected a quantity, got ") + type_name(j));
  }
  const std::optional<int64_t> v = parse_quantity(text, scale);
  if (!v) fail(field, "'" + text + "' is not a non-negative quantity (like 500m, 4, 16Gi)");
  return *v;
}

std::vector<Taint> ObjectFields::taints(const std::string& path) const {
  std::vector<Taint> out;
  const nlohmann::json& list = array(path);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string field = path + "[" + std::to_string(i) + "]";
    const nlohmann::json& t = list[i];
    if (!t.is_object()) fail(field, "expected a taint");
    Taint taint;
    taint.key = member(t, "key", field);
    taint.value = member(t, "value", field);
    const std::string effect = member(t, "effect", field);
    const std::optional<TaintEffect> e = effect_of(effect);
    if (!e)
      fail(field + ".effect",
           "'" + effect + "': expected NoSchedule, PreferNoSchedule or NoExecute");
    taint.effect = *e;
    out.push_back(taint);
  }
  return out;
}

std::vector<Toleration> ObjectFields::tolerations(const std::string& path) const {
  std::vector<Toleration> out;
  const nlohmann::json& list = array(path);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string field = path + "[" + std::to_string(i) + "]";
    const nlohmann::json& t = list[i];
    if (!t.is_object()) fail(field, "expected a toleration");
    Toleration tol;
    tol.key = member(t, "key", field);
    tol.value = member(t, "value", field);
    const std::string op = member(t, "operator", field, "Equal");
    if (op == "Exists") {
      tol.op = Toleration::Operator::kExists;
    } else if (op != "Equal") {
      fail(field + ".operator", "'" + op + "': expected Equal or Exists");
    }
    const std::string effect = member(t, "effect", field);
    if (!effect.empty()) {
      const std::optional<TaintEffect> e = effect_of(effect);
      if (!e)
        fail(field + ".effect",
             "'" + effect + "': expected NoSchedule, PreferNoSchedule or NoExecute");
      tol.any_effect = false;
      tol.effect = *e;
    }
    out.push_back(tol);
  }
  return out;
}

void ObjectFields::fail(const std::string& field, const std::string& message) const {
  throw InputError(SourceLocation{label_, 0, 0}, field, message);
}

}  // namespace gantry::kube
