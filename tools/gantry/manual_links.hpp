#pragma once
// The manual section that documents a field, for the line `see: ...` under an error that names
// it (issue #27: a user who mistyped a field is one step from its reference). The manuals sit
// beside the shipped data (shipped_data.hpp): scenarios/README.md, workflow/README.md,
// sim/PLANNING.md, the same relative paths in the source tree and under share/gantry/.

#include <optional>
#include <string>
#include <vector>

#include "engine/core/errors.hpp"

namespace gantry::cli {

// "scenarios/README.md#inference-services-traffic-autoscaling-cold-starts" for the dotted path
// `field` of an error (spec.workload.services[0].load.qps), relative to the manuals' root;
// nullopt for a field no manual section covers (or no field at all). Decided by the field's
// first keys under spec, which are distinct across the kinds of file.
std::optional<std::string> manual_section(const std::string& field);

// The distinct sections of `errors`' fields, in the order first met.
std::vector<std::string> manual_sections(const std::vector<InputError>& errors);

// Prints "see: <manual>#<section>" to stderr for each of manual_sections(errors), the manuals
// found beside the shipped data (their path relative to it when that is not found).
void print_manual_links(const std::vector<InputError>& errors);

}  // namespace gantry::cli
