#include "sim/experiment_loader.hpp"

#include <limits>

#include "engine/config/config_fields.hpp"
#include "sim/fragmentation_spec_loader.hpp"

namespace gantry {

ExperimentSpec read_experiment(const Envelope& envelope, ConfigErrors& errors) {
  ExperimentSpec e;
  e.name = envelope.name;
  e.file = envelope.file;
  if (!envelope.spec) return e;
  // Leftovers of the Scenario form (spec.experiment: {kind: Fragmentation, ...}).
  const ConfigFields spec(
      *envelope.spec,
      {"type", "seed", "nodes", "pods", "arrivalLimit", "seeds", "typicalPodCoverage", "policies",
       "variants"},
      errors,
      {{"experiment",
        "the experiment's fields go directly under spec (spec.nodes, spec.pods, "
        "...), with type: Fragmentation"},
       {"kind", "an experiment's type is spec.type: Fragmentation"}});
  if (!spec.valid()) return e;
  enum class Type { kFragmentation };
  const bool type_ok = spec.read_required("type", [](const ConfigNode& n) {
    n.as_enum<Type>({{"Fragmentation", Type::kFragmentation}});
  });
  spec.read("seed", [&](const ConfigNode& n) {
    e.seed = static_cast<uint64_t>(n.as_int(0, std::numeric_limits<int64_t>::max()));
  });
  // The fields depend on the type; with no readable type they could only be guessed at.
  if (type_ok) e.fragmentation = read_fragmentation_fields(spec);
  return e;
}

ExperimentSpec load_experiment_text(const std::string& text, const std::string& file_name) {
  return load_document<ExperimentSpec>(text, file_name, {"Experiment"}, read_experiment);
}

ExperimentSpec load_experiment_file(const std::string& path) {
  return load_experiment_text(read_text_file(path), path);
}

}  // namespace gantry
