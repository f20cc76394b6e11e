#include "sim/simulation_file.hpp"

#include "sim/experiment_loader.hpp"
#include "sim/scenario_loader.hpp"

namespace gantry {

SimulationFile load_simulation_text(const std::string& text, const std::string& file_name,
                                    const TraceLoaders& traces) {
  return load_document<SimulationFile>(
      text, file_name, {"Scenario", "Experiment"},
      [&](const Envelope& envelope, ConfigErrors& errors) -> SimulationFile {
        if (envelope.kind == "Experiment") return read_experiment(envelope, errors);
        return read_scenario(envelope, traces, errors);
      });
}

SimulationFile load_simulation_file(const std::string& path, const TraceLoaders& traces) {
  return load_simulation_text(read_text_file(path), path, traces);
}

}  // namespace gantry
