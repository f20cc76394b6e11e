#pragma once
// The Kubernetes-style envelope every Gantry file kind shares (DESIGN.md, "What users write"):
//
//   apiVersion: gantry.dev/v1
//   kind: Scenario
//   metadata: {name: quickstart, description: "...", labels: {team: a}}
//   spec: {...}
//
// read_envelope checks the envelope and hands back `spec` for the kind's own reader.

#include <map>
#include <string>
#include <string_view>

#include "engine/config/reader.hpp"

namespace gantry {

inline constexpr std::string_view kApiVersion = "gantry.dev/v1";

struct Envelope {
  std::string kind;
  std::string name;                           // metadata.name, required
  std::string description;                    // metadata.description, optional
  std::map<std::string, std::string> labels;  // metadata.labels, optional
  ConfigNode spec;                            // not yet read: the caller's reader does that
};

// Reads a document's envelope. Throws InputError unless apiVersion is kApiVersion, kind is
// `expected_kind` (case-sensitive), metadata.name is present and no other top-level or metadata
// field is given.
Envelope read_envelope(const ConfigNode& document, std::string_view expected_kind);

}  // namespace gantry
