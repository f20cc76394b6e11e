#include "engine/config/envelope.hpp"

#include <algorithm>

#include "engine/config/quote.hpp"

namespace gantry {

std::optional<std::string> read_kind(const ConfigFields& top,
                                     const std::vector<std::string_view>& kinds) {
  top.read("apiVersion", [](const ConfigNode& n) {
    if (n.as_string() != kApiVersion)
      n.fail("unsupported apiVersion " + quote_for_message(n.as_string()) + "; expected " +
             std::string(kApiVersion));
  });
  std::optional<std::string> kind;
  top.read_required("kind", [&](const ConfigNode& n) {
    if (kinds.size() > 1) {
      kind = kinds[n.as_choice(kinds)];
      return;
    }
    if (n.as_string() != kinds.front())
      n.fail("expected kind " + std::string(kinds.front()) + ", got " +
             quote_for_message(n.as_string()));
    kind = kinds.front();
  });
  return kind;
}

std::optional<Envelope> read_envelope(const ConfigNode& document,
                                      std::initializer_list<std::string_view> kinds,
                                      ConfigErrors& errors) {
  const ConfigFields top(document, {"apiVersion", "kind", "metadata", "spec"}, errors);
  if (!top.valid()) return std::nullopt;
  std::optional<std::string> kind = read_kind(top, kinds);
  if (!kind) return std::nullopt;
  Envelope out;
  out.file = document.file();
  out.kind = std::move(*kind);
  if (auto meta = top.required("metadata")) {
    const ConfigFields metadata(*meta, {"name", "description", "labels"}, errors);
    metadata.read_required("name", [&](const ConfigNode& n) { out.name = n.as_name(); });
    metadata.read("description", [&](const ConfigNode& n) { out.description = n.as_string(); });
    metadata.read("labels", [&](const ConfigNode& n) {
      // Labels are free-form: only their shape is checked (unique string keys, string values).
      for (const ConfigEntry& e : n.as_entries())
        errors.attempt([&] { out.labels.emplace(e.name, e.value.as_string()); });
    });
  }
  out.spec = top.required("spec");
  return out;
}

Envelope read_envelope(const ConfigNode& document, std::string_view expected_kind) {
  ConfigErrors errors;
  std::optional<Envelope> envelope = read_envelope(document, {expected_kind}, errors);
  errors.throw_if_any();
  return std::move(*envelope);
}

}  // namespace gantry
