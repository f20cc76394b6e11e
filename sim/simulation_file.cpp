#include "sim/simulation_file.hpp"

#include "sim/experiment_loader.hpp"
#include "sim/scenario_loader.hpp"

namespace gantry {

SimulationFile load_simulation_text(const std::string& text, const std::string& file_name,
                                    const ClusterTraceLoader& traces) {
  const ConfigNode document = parse_yaml_document(text, file_name);
  ConfigErrors errors;
  SimulationFile out;
  if (std::optional<Envelope> envelope =
          read_envelope(document, {"Scenario", "Experiment"}, errors)) {
    if (envelope->kind == "Experiment")
      out = read_experiment(*envelope, errors);
    else
      out = read_scenario(*envelope, traces, errors);
  }
  errors.throw_if_any({file_name});
  return out;
}

SimulationFile load_simulation_file(const std::string& path, const ClusterTraceLoader& traces) {
  return load_simulation_text(read_text_file(path), path, traces);
}

}  // namespace gantry
