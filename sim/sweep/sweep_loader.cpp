#include "sim/sweep/sweep_loader.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "engine/config/config_fields.hpp"
#include "engine/config/envelope.hpp"
#include "engine/config/quote.hpp"
#include "sim/sweep/sweep_metrics.hpp"

namespace gantry {

namespace {

// A value's text on one line: the scalar itself, or flow-style YAML for a list or a map.
std::string one_line(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

SweepValue read_value(const ConfigNode& n) {
  if (n.is_null()) n.fail("expected a value, got nothing");
  return SweepValue{.node = YAML::Clone(n.yaml()),
                    .text = one_line(n.yaml()),
                    .where = n.location(),
                    .field = n.path()};
}

bool axis_name_ok(const std::string& name) {
  if (name.empty() || name.size() > 64 || !std::isalpha(static_cast<unsigned char>(name[0])))
    return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  return true;
}

std::optional<SweepAxis> read_axis(const ConfigNode& node, ConfigErrors& errors) {
  const ConfigFields f(node, {"name", "path", "values"}, errors);
  if (!f.valid()) return std::nullopt;
  SweepAxis axis;
  axis.item_where = node.location();
  const bool name_ok = f.read_required("name", [&](const ConfigNode& n) {
    axis.name = n.as_string();
    if (!axis_name_ok(axis.name))
      n.fail(
          fmt::format("expected an axis name (a letter, then letters, digits, '_' or '-'; at "
                      "most 64), got {}",
                      quote_for_message(axis.name)));
  });
  const bool path_ok = f.read_required("path", [&](const ConfigNode& n) {
    axis.path_text = n.as_string();
    axis.where = n.location();
    const auto steps = parse_path(axis.path_text);
    if (!steps)
      n.fail(
          fmt::format("expected a field path such as spec.cluster.racks[*].nodes (fields "
                      "separated by '.', items as [0] or [*]), got {}",
                      quote_for_message(axis.path_text)));
    axis.path = *steps;
  });
  f.read("values", [&](const ConfigNode& n) {
    const std::vector<ConfigNode> items = n.as_sequence();
    if (items.empty()) n.fail("expected at least one value");
    for (const ConfigNode& item : items)
      errors.attempt([&] { axis.values.push_back(read_value(item)); });
  });
  if (!name_ok || !path_ok) return std::nullopt;
  // Axes are columns of the results database beside these (sim/sweep/sweep_store.hpp).
  for (std::string_view reserved : {"point", "seed_index", "seed", "fingerprint"})
    if (axis.name == reserved) {
      errors.add(*f.optional("name"),
                 fmt::format("'{}' is a column of every sweep's results; name the axis otherwise",
                             axis.name));
      return std::nullopt;
    }
  if (metric_info(axis.name)) {
    errors.add(*f.optional("name"),
               fmt::format("'{}' is a metric's name; name the axis otherwise", axis.name));
    return std::nullopt;
  }
  return axis;
}

void add_product(SweepSpec& s, size_t axis, std::vector<SweepValue>& chosen) {
  if (axis == s.axes.size()) {
    s.points.push_back(
        SweepPoint{.values = chosen, .where = chosen.back().where, .field = chosen.back().field});
    return;
  }
  for (const SweepValue& v : s.axes[axis].values) {
    chosen.push_back(v);
    add_product(s, axis + 1, chosen);
    chosen.pop_back();
  }
}

void read_points(const ConfigNode& n, SweepSpec& s, ConfigErrors& errors) {
  const std::vector<ConfigNode> items = n.as_sequence();
  if (items.empty()) n.fail("expected at least one point");
  for (const ConfigNode& item : items) {
    errors.attempt([&] {
      std::vector<ConfigEntry> entries = item.as_entries();
      SweepPoint point{.values = std::vector<SweepValue>(s.axes.size()),
                       .where = item.location(),
                       .field = item.path()};
      std::vector<bool> given(s.axes.size(), false);
      bool ok = true;
      for (const ConfigEntry& e : entries) {
        size_t axis = s.axes.size();
        for (size_t a = 0; a < s.axes.size(); ++a)
          if (s.axes[a].name == e.name) axis = a;
        if (axis == s.axes.size()) {
          std::vector<std::string> names;
          for (const SweepAxis& a : s.axes) names.push_back(a.name);
          errors.add(e.key, fmt::format("unknown axis {}; the axes are: {}",
                                        quote_for_message(e.name), fmt::join(names, ", ")));
          ok = false;
          continue;
        }
        ok = errors.attempt([&] { point.values[axis] = read_value(e.value); }) && ok;
        given[axis] = true;
      }
      for (size_t a = 0; a < s.axes.size(); ++a)
        if (!given[a]) {
          errors.add(item, fmt::format("missing a value for axis '{}'", s.axes[a].name));
          ok = false;
        }
      if (ok) s.points.push_back(std::move(point));
    });
  }
}

SweepSpec read_sweep(const Envelope& envelope, ConfigErrors& errors) {
  SweepSpec s;
  s.file = envelope.file;
  s.name = envelope.name;
  if (!envelope.spec) return s;
  const ConfigFields spec(*envelope.spec, {"base", "seeds", "growth", "axes", "points", "metrics"},
                          errors);
  if (!spec.valid()) return s;
  spec.read_required("base", [&](const ConfigNode& n) {
    s.base_as_written = n.as_name();
    s.base_where = n.location();
    s.base = base_file_path(n);
  });
  spec.read("seeds",
            [&](const ConfigNode& n) { s.seeds = static_cast<int>(n.as_int(1, kMaxSweepSeeds)); });
  spec.read("growth", [&](const ConfigNode& n) {
    s.growth = n.as_double(kMinSweepGrowth, kMaxSweepGrowth);
    s.growth_where = n.location();
  });
  const size_t before_axes = errors.size();
  spec.read_required("axes", [&](const ConfigNode& n) {
    const std::vector<ConfigNode> items = n.as_sequence();
    if (items.empty()) n.fail("expected at least one axis");
    if (items.size() > kMaxSweepAxes)
      n.fail(fmt::format("expected at most {} axes, got {}", kMaxSweepAxes, items.size()));
    std::set<std::string> names;
    for (const ConfigNode& item : items) {
      std::optional<SweepAxis> axis;
      errors.attempt([&] { axis = read_axis(item, errors); });
      if (!axis) continue;
      if (!names.insert(axis->name).second)
        errors.add(item, fmt::format("axis name '{}' is given twice", axis->name));
      s.axes.push_back(std::move(*axis));
    }
  });
  const bool axes_ok = errors.size() == before_axes && !s.axes.empty();
  if (auto points = spec.optional("points")) {
    for (size_t a = 0; a < s.axes.size(); ++a)
      if (!s.axes[a].values.empty())
        errors.add(InputError(s.axes[a].values.front().where, s.axes[a].values.front().field,
                              "an axis lists values or the sweep lists points, not both"));
    if (axes_ok) errors.attempt([&] { read_points(*points, s, errors); });
  } else if (axes_ok) {
    bool all_have_values = true;
    for (const SweepAxis& a : s.axes)
      if (a.values.empty()) {
        errors.add(InputError(
            a.item_where, "spec.axes",
            fmt::format(
                "axis '{}' has no values (give `values:`, or list combinations under `points:`)",
                a.name)));
        all_have_values = false;
      }
    size_t product = 1;
    for (const SweepAxis& a : s.axes)
      product = std::min(product * std::max<size_t>(a.values.size(), 1), kMaxSweepRuns + 1);
    if (all_have_values && product <= kMaxSweepRuns) {
      std::vector<SweepValue> chosen;
      add_product(s, 0, chosen);
    } else if (all_have_values) {
      errors.add(*spec.optional("axes"),
                 fmt::format("the axes make more than {} points", kMaxSweepRuns));
    }
  }
  if (!s.points.empty() && s.points.size() * static_cast<size_t>(s.seeds) > kMaxSweepRuns)
    errors.add(*envelope.spec,
               fmt::format("{} points × {} seeds = {} runs; a sweep runs at most {}",
                           s.points.size(), s.seeds, s.points.size() * s.seeds, kMaxSweepRuns));
  s.metrics = default_metrics();
  spec.read("metrics", [&](const ConfigNode& n) {
    s.metrics_where = n.location();
    s.metrics.clear();
    const std::vector<ConfigNode> items = n.as_sequence();
    if (items.empty()) n.fail("expected at least one metric");
    std::set<std::string> seen;
    for (const ConfigNode& item : items) {
      errors.attempt([&] {
        const std::string name = item.as_string();
        if (!metric_info(name))
          item.fail(fmt::format("unknown metric {}; expected one of: {}", quote_for_message(name),
                                metric_names()));
        if (!seen.insert(name).second) item.fail(fmt::format("metric '{}' is given twice", name));
        s.metrics.push_back(name);
      });
    }
  });
  return s;
}

// The line `line` (1-based) of `text`.
std::string_view line_of(const std::string& text, int line) {
  size_t begin = 0;
  for (int i = 1; i < line && begin != std::string::npos; ++i) {
    begin = text.find('\n', begin);
    if (begin != std::string::npos) ++begin;
  }
  if (begin == std::string::npos) return {};
  const size_t end = text.find('\n', begin);
  return std::string_view(text).substr(begin, end == std::string::npos ? end : end - begin);
}

}  // namespace

std::string base_file_path(const ConfigNode& node) {
  const std::filesystem::path folder = std::filesystem::path(node.file()).parent_path();
  const std::string path = (folder / node.as_name()).lexically_normal().string();
  if (!std::filesystem::is_regular_file(path)) node.fail("no such file: " + path);
  return path;
}

SweepSpec load_sweep_text(const std::string& text, const std::string& file_name) {
  try {
    return load_document<SweepSpec>(text, file_name, {"Sweep"}, read_sweep);
  } catch (const InputErrors&) {
    throw;
  } catch (const InputError& e) {
    // The form the docs use, `- {name: n, path: spec.racks[*].nodes, values: [...]}`, is not
    // YAML when the path is not quoted: inside {...} a plain value ends at '['. yaml-cpp only
    // says "end of map flow not found"; say what to do.
    const std::string_view line = line_of(text, e.where().line);
    const size_t path = line.find("path:");
    if (e.detail().starts_with("YAML syntax error") && line.find('{') != std::string_view::npos &&
        path != std::string_view::npos) {
      const std::string_view value = line.substr(path + 5);
      const size_t first = value.find_first_not_of(' ');
      if (first != std::string_view::npos && value[first] != '"' && value[first] != '\'' &&
          value.find('[') != std::string_view::npos)
        throw InputError(e.where(), e.field(),
                         e.detail() +
                             "; inside {...} a path with [ ] must be quoted: path: "
                             "\"spec.cluster.racks[*].nodes\"");
    }
    throw;
  }
}

SweepSpec load_sweep_file(const std::string& path) {
  return load_sweep_text(read_text_file(path), path);
}

}  // namespace gantry
