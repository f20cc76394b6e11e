#include "engine/config/envelope.hpp"

#include "engine/config/quote.hpp"

namespace gantry {

Envelope read_envelope(const ConfigNode& document, std::string_view expected_kind) {
  const ConfigMap top = document.as_map({"apiVersion", "kind", "metadata", "spec"});

  const ConfigNode api = top.required("apiVersion");
  if (api.as_string() != kApiVersion)
    api.fail("unsupported apiVersion " + quote_for_message(api.as_string()) + "; expected " +
             std::string(kApiVersion));

  const ConfigNode kind = top.required("kind");
  if (kind.as_string() != expected_kind)
    kind.fail("expected kind " + std::string(expected_kind) + ", got " +
              quote_for_message(kind.as_string()));

  const ConfigMap metadata = top.required("metadata").as_map({"name", "description", "labels"});
  Envelope out{std::string(expected_kind), metadata.required("name").as_name(), "", {},
               top.required("spec")};
  if (auto d = metadata.optional("description")) out.description = d->as_string();
  if (auto labels = metadata.optional("labels")) {
    // Labels are free-form: only their shape is checked (unique string keys, string values).
    for (const ConfigEntry& e : labels->as_entries())
      out.labels.emplace(e.name, e.value.as_string());
  }
  return out;
}

}  // namespace gantry
