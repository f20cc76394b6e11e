#include "workflow/pipeline/pipeline_params.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "engine/config/config_fields.hpp"
#include "engine/config/quote.hpp"

namespace gantry {

namespace {

bool env_safe(const std::string& name) {
  if (name.empty() || (name.front() >= '0' && name.front() <= '9')) return false;
  for (char c : name) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string upper(std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return s;
}

// A default read from YAML as the literal of its type; throws InputError at the node.
std::string read_default(const ConfigNode& n, ParamType type) {
  switch (type) {
    case ParamType::kString:
      return nlohmann::json(n.as_string()).dump();
    case ParamType::kInt:
      return std::to_string(
          n.as_int(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
    case ParamType::kFloat:
      return nlohmann::json(n.as_double(-std::numeric_limits<double>::max(),
                                        std::numeric_limits<double>::max()))
          .dump();
    case ParamType::kBool:
      return n.as_bool() ? "true" : "false";
  }
  return "null";
}

}  // namespace

std::vector<ParamSpec> read_params(const ConfigNode& node, ConfigErrors& errors, bool scheduled) {
  std::vector<ParamSpec> out;
  std::map<std::string, std::string> env_names;  // GANTRY_PARAM_X -> the param named so
  errors.attempt([&] {
    for (const ConfigEntry& e : node.as_entries()) {
      if (!env_safe(e.name)) {
        errors.add(e.key,
                   "expected a param name of letters, digits and '_', not starting with a digit "
                   "(tasks see it as env GANTRY_PARAM_<NAME>), got " +
                       quote_for_message(e.name));
        continue;
      }
      const auto [other, fresh] = env_names.emplace(upper(e.name), e.name);
      if (!fresh) {
        errors.add(e.key, "param " + e.name + " and param " + other->second +
                              " are the same env GANTRY_PARAM_" + upper(e.name));
        continue;
      }
      ParamSpec p;
      p.name = e.name;
      p.where = e.key.location();
      const ConfigFields f(e.value, {"type", "default", "description"}, errors);
      if (!f.valid()) continue;
      bool typed = false;
      if (auto t = f.required("type")) {
        typed = errors.attempt([&] {
          p.type = t->as_enum<ParamType>({{"string", ParamType::kString},
                                          {"int", ParamType::kInt},
                                          {"float", ParamType::kFloat},
                                          {"bool", ParamType::kBool}});
        });
      }
      if (typed)
        f.read("default", [&](const ConfigNode& n) { p.default_value = read_default(n, p.type); });
      f.read("description", [&](const ConfigNode& n) { p.description = n.as_string(); });
      if (typed && scheduled && !f.has("default"))
        f.missing("default", ": the pipeline has a schedule, and scheduled runs take the defaults");
      out.push_back(std::move(p));
    }
  });
  return out;
}

std::map<std::string, std::string> default_params(const PipelineSpec& spec) {
  std::map<std::string, std::string> out;
  for (const ParamSpec& p : spec.params)
    if (p.default_value) out[p.name] = *p.default_value;
  return out;
}

std::map<std::string, std::string> resolve_params(const PipelineSpec& spec,
                                                  const nlohmann::json& given) {
  if (!given.is_null() && !given.is_object())
    throw std::invalid_argument("params: expected an object of name: value, got " + given.dump());
  std::map<std::string, std::string> out = default_params(spec);
  if (given.is_object()) {
    for (const auto& item : given.items()) {
      // Not a structured binding: clang 14 cannot capture one in the lambda below.
      const std::string& name = item.key();
      const nlohmann::json& value = item.value();
      const auto p = std::find_if(spec.params.begin(), spec.params.end(),
                                  [&](const ParamSpec& s) { return s.name == name; });
      if (p == spec.params.end()) {
        std::string names;
        for (const ParamSpec& s : spec.params) names += (names.empty() ? "" : ", ") + s.name;
        throw std::invalid_argument(
            "params." + name + ": not a param of pipeline " + spec.name +
            (names.empty() ? " (it has none)" : " (it has: " + names + ")"));
      }
      bool ok = false;
      switch (p->type) {
        case ParamType::kString:
          ok = value.is_string();
          break;
        case ParamType::kInt:
          ok = value.is_number_integer();
          break;
        case ParamType::kFloat:
          ok = value.is_number() && std::isfinite(value.get<double>());
          break;
        case ParamType::kBool:
          ok = value.is_boolean();
          break;
      }
      if (!ok) {
        const std::string article = p->type == ParamType::kInt ? "an " : "a ";
        throw std::invalid_argument("params." + name + ": expected " + article +
                                    std::string(to_string(p->type)) + ", got " + value.dump());
      }
      out[name] =
          p->type == ParamType::kFloat ? nlohmann::json(value.get<double>()).dump() : value.dump();
    }
  }
  for (const ParamSpec& p : spec.params)
    if (out.count(p.name) == 0)
      throw std::invalid_argument("params." + p.name + ": required (it has no default)");
  return out;
}

}  // namespace gantry
