#include "sim/fragmentation_spec_loader.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "engine/config/quote.hpp"

namespace gantry {

std::optional<TraceRef> read_trace_ref(const ConfigNode& node,
                                       std::initializer_list<std::string_view> formats,
                                       ConfigErrors& errors) {
  const ConfigFields m(node, {"format", "file"}, errors);
  TraceRef ref;
  const bool format_ok = m.read_required("format", [&](const ConfigNode& n) {
    ref.format = n.as_name();
    if (std::find(formats.begin(), formats.end(), ref.format) != formats.end()) return;
    std::string allowed;
    for (std::string_view f : formats) allowed += (allowed.empty() ? "" : ", ") + std::string(f);
    n.fail("unknown trace format " + quote_for_message(ref.format) +
           "; expected one of: " + allowed);
  });
  const bool file_ok = m.read_required("file", [&](const ConfigNode& n) {
    ref.file = n.as_name();
    ref.where = n.location();
    const std::filesystem::path base = std::filesystem::path(node.file()).parent_path();
    ref.path = (base / ref.file).lexically_normal().string();
    if (!std::filesystem::is_regular_file(ref.path)) n.fail("no such file: " + ref.path);
  });
  if (!format_ok || !file_ok) return std::nullopt;
  return ref;
}

FragmentationExperimentSpec read_fragmentation_fields(const ConfigFields& spec) {
  ConfigErrors& errors = spec.errors();
  FragmentationExperimentSpec e;
  if (auto n = spec.required("nodes"))
    if (auto ref = read_trace_ref(*n, {"openb-nodes", "pai-machines", "spot-nodes"}, errors))
      e.nodes = *ref;
  if (auto n = spec.required("pods"))
    if (auto ref = read_trace_ref(*n, {"openb-pods"}, errors)) e.pods = *ref;
  spec.read("arrivalLimit",
            [&](const ConfigNode& n) { e.arrival_limit_pct = n.as_double(1, 1000); });
  spec.read("seeds", [&](const ConfigNode& n) { e.seeds = static_cast<int>(n.as_int(1, 1000)); });
  spec.read("typicalPodCoverage", [&](const ConfigNode& n) {
    e.typical_coverage = n.as_double(0, 1);
    if (!(e.typical_coverage > 0)) n.fail("expected a share in (0, 1], such as 0.95");
  });
  std::vector<std::string_view> names;
  for (const ExperimentPolicy& p : kExperimentPolicies) names.push_back(p.display);
  if (!spec.read("policies",
                 [&](const ConfigNode& n) {
                   const std::vector<ConfigNode> items = n.as_sequence();
                   if (items.empty()) n.fail("list at least one policy");
                   for (const ConfigNode& item : items)
                     errors.attempt([&] {
                       const std::string_view name = names[item.as_choice(names)];
                       if (std::find(e.policies.begin(), e.policies.end(), name) !=
                           e.policies.end())
                         item.fail("policy " + std::string(name) + " is listed twice");
                       e.policies.emplace_back(name);
                     });
                 }) &&
      !spec.has("policies"))
    e.policies.assign(names.begin(), names.end());
  spec.read("variants", [&](const ConfigNode& n) {
    std::set<std::string, std::less<>> seen;
    for (const ConfigNode& item : n.as_sequence()) {
      const ConfigFields v(item, {"name", "pods"}, errors);
      PodListVariant variant;
      v.read_required("name", [&](const ConfigNode& name) {
        variant.name = name.as_name();
        if (!seen.insert(variant.name).second)
          name.fail("duplicate variant name " + quote_for_message(variant.name));
      });
      if (auto pods = v.required("pods"))
        if (auto ref = read_trace_ref(*pods, {"openb-pods"}, errors)) variant.pods = *ref;
      e.variants.push_back(std::move(variant));
    }
  });
  return e;
}

}  // namespace gantry
