#include "engine/config/config_fields.hpp"

#include <algorithm>
#include <stdexcept>

namespace gantry {

ConfigFields::ConfigFields(const ConfigNode& node, std::initializer_list<std::string_view> allowed,
                           ConfigErrors& errors, std::initializer_list<RetiredField> retired)
    : node_(node), allowed_(allowed), errors_(&errors) {
  const auto unknown = [&](const ConfigEntry& entry, std::string message) {
    const auto moved = std::find_if(retired.begin(), retired.end(),
                                    [&](const RetiredField& r) { return r.key == entry.name; });
    if (moved == retired.end()) {
      errors.add(entry.key, std::move(message));
      return;
    }
    errors.add(entry.key, std::string(moved->message));
    retired_.emplace(entry.name, entry.value);
  };
  std::vector<ConfigEntry> entries;
  if (!errors.attempt([&] { entries = node.allowed_entries(allowed_, unknown); })) return;
  valid_ = true;
  for (ConfigEntry& e : entries) values_.emplace(e.name, std::move(e.value));
}

void ConfigFields::check_allowed(std::string_view key) const {
  if (std::find(allowed_.begin(), allowed_.end(), key) == allowed_.end())
    throw std::logic_error("ConfigFields: field '" + std::string(key) +
                           "' is not in the allowed list of " + node_.path());
}

std::optional<ConfigNode> ConfigFields::optional(std::string_view key) const {
  check_allowed(key);
  const auto it = values_.find(key);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::optional<ConfigNode> ConfigFields::required(std::string_view key) const {
  std::optional<ConfigNode> n = optional(key);
  if (!n && valid_) missing(key);
  return n;
}

void ConfigFields::missing(std::string_view key, const std::string& why) const {
  const InputError e = node_.missing_field(key);
  errors_->add(InputError(e.where(), e.field(), e.detail() + why));
}

std::optional<ConfigNode> ConfigFields::retired(std::string_view key) const {
  const auto it = retired_.find(key);
  if (it == retired_.end()) return std::nullopt;
  return it->second;
}

}  // namespace gantry
