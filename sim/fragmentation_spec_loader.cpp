#include "sim/fragmentation_spec_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

namespace gantry {

TraceRef read_trace_ref(const ConfigNode& node, std::initializer_list<std::string_view> formats) {
  const ConfigMap m = node.as_map({"format", "file"});
  TraceRef ref;
  const ConfigNode format = m.required("format");
  ref.format = format.as_name();
  if (std::find(formats.begin(), formats.end(), ref.format) == formats.end()) {
    std::string allowed;
    for (std::string_view f : formats) allowed += (allowed.empty() ? "" : ", ") + std::string(f);
    format.fail("unknown trace format '" + ref.format + "'; expected one of: " + allowed);
  }
  const ConfigNode file = m.required("file");
  ref.file = file.as_name();
  ref.where = file.location();
  const std::filesystem::path base = std::filesystem::path(node.file()).parent_path();
  ref.path = (base / ref.file).lexically_normal().string();
  if (!std::filesystem::is_regular_file(ref.path))
    file.fail("no such file: " + ref.path);
  return ref;
}

FragmentationExperimentSpec read_fragmentation_experiment(const ConfigNode& node) {
  const ConfigMap m = node.as_map({"kind", "nodes", "pods", "arrivalLimit", "seeds",
                                   "typicalPodCoverage", "policies", "variants"});
  enum class Kind { kFragmentation };
  m.required("kind").as_enum<Kind>({{"Fragmentation", Kind::kFragmentation}});
  FragmentationExperimentSpec e;
  e.nodes = read_trace_ref(m.required("nodes"), {"openb-nodes", "pai-machines", "spot-nodes"});
  e.pods = read_trace_ref(m.required("pods"), {"openb-pods"});
  if (auto n = m.optional("arrivalLimit")) e.arrival_limit_pct = n->as_double(1, 1000);
  if (auto n = m.optional("seeds")) e.seeds = static_cast<int>(n->as_int(1, 1000));
  if (auto n = m.optional("typicalPodCoverage")) {
    e.typical_coverage = n->as_double(0, 1);
    if (!(e.typical_coverage > 0)) n->fail("expected a share in (0, 1], such as 0.95");
  }
  if (auto n = m.optional("policies")) {
    for (const ConfigNode& item : n->as_sequence()) {
      std::vector<std::string_view> names;
      for (const ExperimentPolicy& p : kExperimentPolicies) names.push_back(p.display);
      const size_t i = item.as_choice(names);
      if (std::find(e.policies.begin(), e.policies.end(), names[i]) != e.policies.end())
        item.fail("policy " + std::string(names[i]) + " is listed twice");
      e.policies.emplace_back(names[i]);
    }
    if (e.policies.empty()) n->fail("list at least one policy");
  } else {
    for (const ExperimentPolicy& p : kExperimentPolicies) e.policies.emplace_back(p.display);
  }
  if (auto n = m.optional("variants")) {
    std::map<std::string, int, std::less<>> lines;
    for (const ConfigNode& item : n->as_sequence()) {
      const ConfigMap v = item.as_map({"name", "pods"});
      PodListVariant variant;
      const ConfigNode name = v.required("name");
      variant.name = name.as_name();
      if (!lines.emplace(variant.name, name.location().line).second)
        name.fail("duplicate variant name '" + variant.name + "'");
      variant.pods = read_trace_ref(v.required("pods"), {"openb-pods"});
      e.variants.push_back(std::move(variant));
    }
  }
  return e;
}

}  // namespace gantry
