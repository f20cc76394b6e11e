#pragma once
// The Kubernetes-style envelope every Gantry file kind shares (DESIGN.md, "What users write"):
//
//   apiVersion: gantry.dev/v1
//   kind: Scenario
//   metadata: {name: quickstart, description: "...", labels: {team: a}}
//   spec: {...}
//
// read_envelope checks the envelope and hands back `spec` for the kind's own reader.

#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/config/config_errors.hpp"
#include "engine/config/config_fields.hpp"
#include "engine/config/reader.hpp"

namespace gantry {

inline constexpr std::string_view kApiVersion = "gantry.dev/v1";

struct Envelope {
  std::string file;  // the document's file, for messages
  std::string kind;
  std::string name;                           // metadata.name, required
  std::string description;                    // metadata.description, optional
  std::map<std::string, std::string> labels;  // metadata.labels, optional
  std::optional<ConfigNode> spec;             // not yet read; nullopt when missing (reported)
};

// Checks `top` (the fields apiVersion, kind, metadata, spec of a document) for apiVersion
// kApiVersion and a kind among `kinds` (case-sensitive), and returns the kind. Records what is
// wrong in top's collector: "unsupported apiVersion ...", "expected kind Scenario, got ..."
// (one kind) or "unknown value ...; expected one of: Pipeline, Pool" (several). nullopt when
// the kind is missing or wrong: the rest of the document cannot be read.
std::optional<std::string> read_kind(const ConfigFields& top,
                                     const std::vector<std::string_view>& kinds);

// Reads a document's envelope, recording every problem in `errors`: the checks of read_kind,
// metadata.name present and a name, labels string to string, no other top-level or metadata
// field. nullopt when the document is not a map or its kind cannot be read.
std::optional<Envelope> read_envelope(const ConfigNode& document,
                                      std::initializer_list<std::string_view> kinds,
                                      ConfigErrors& errors);

// The same for one kind, all at once: throws InputErrors listing every problem.
Envelope read_envelope(const ConfigNode& document, std::string_view expected_kind);

// A whole file of one document: parses `text` (InputError for a YAML syntax error), reads its
// envelope (a kind among `kinds`) and hands it to `read(envelope, errors)`, which returns a T;
// every problem of the envelope and of `read` is collected and thrown at the end as one
// InputErrors, this file's errors first.
template <typename T, typename Read>
T load_document(const std::string& text, const std::string& file_name,
                std::initializer_list<std::string_view> kinds, Read&& read) {
  const ConfigNode document = parse_yaml_document(text, file_name);
  ConfigErrors errors;
  T out{};
  if (std::optional<Envelope> envelope = read_envelope(document, kinds, errors))
    out = read(*envelope, errors);
  errors.throw_if_any({file_name});
  return out;
}

}  // namespace gantry
