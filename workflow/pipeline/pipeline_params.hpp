#pragma once
// spec.params of a Pipeline (issue #26 §3): a map name -> {type: string|int|float|bool,
// default, description}. Reading them from YAML (every error collected, at its line and
// column, a default of the wrong type included) and checking the values a trigger gives.
// Values travel as JSON literals of their type ("\"abc\"", "3", "2.5", "true"): the form the
// runs database keeps (Run::params) and the Run JSON shows.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry {

// The params of a `spec.params` map node; errors go to `errors` (path spec.params.NAME...).
// `scheduled`: the pipeline has a schedule, so every param needs a default.
std::vector<ParamSpec> read_params(const ConfigNode& node, ConfigErrors& errors, bool scheduled);

// The values of a run: `given` (a JSON object name -> value) checked against the pipeline's
// params, defaults filling the rest. Throws std::invalid_argument naming the param ("params.
// epochs: expected an int, got \"ten\"", "params.lr: not a param of pipeline x (it has:
// epochs)", "params.epochs: required (no default)").
std::map<std::string, std::string> resolve_params(const PipelineSpec& spec,
                                                  const nlohmann::json& given);
// Every param's default (a scheduled run's values); params without one are left out.
std::map<std::string, std::string> default_params(const PipelineSpec& spec);

}  // namespace gantry
