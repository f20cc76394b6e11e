#include "sim/sweep/document_path.hpp"

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>
#include <utility>

namespace gantry {

namespace {

bool field_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
}

std::string kind_of(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  return fmt::format("the value '{}'", node.Scalar());
}

std::string field_names(const YAML::Node& map) {
  std::vector<std::string> names;
  for (const auto& entry : map) names.push_back(entry.first.as<std::string>());
  return fmt::format("{}", fmt::join(names, ", "));
}

// The child of `node` at `step` (not the wildcard), or throws naming `prefix`, the path of
// `node`. An absent field gives an undefined node (the caller decides).
YAML::Node child(const YAML::Node& node, const PathStep& step, const std::string& prefix) {
  const std::string where = prefix.empty() ? "the document" : prefix;
  if (step.kind == PathStep::Kind::kField) {
    if (!node.IsMap())
      throw std::invalid_argument(
          fmt::format("there is no field '{}' in {}: it is {}", step.field, where, kind_of(node)));
    return node[step.field];
  }
  if (!node.IsSequence())
    throw std::invalid_argument(fmt::format("{} is {}, not a list", where, kind_of(node)));
  if (step.index >= node.size())
    throw std::invalid_argument(
        fmt::format("{} has {} item{}", where, node.size(), node.size() == 1 ? "" : "s"));
  return node[step.index];
}

void expand(const YAML::Node& node, const std::vector<PathStep>& steps, size_t at,
            std::vector<PathStep>& prefix, std::vector<std::vector<PathStep>>& out) {
  if (at == steps.size()) {
    out.push_back(prefix);
    return;
  }
  const PathStep& step = steps[at];
  if (step.kind == PathStep::Kind::kEvery) {
    const std::string where = prefix.empty() ? "the document" : path_text(prefix);
    if (!node.IsSequence())
      throw std::invalid_argument(fmt::format("{} is {}, not a list", where, kind_of(node)));
    if (node.size() == 0) throw std::invalid_argument(fmt::format("{} is an empty list", where));
    for (size_t i = 0; i < node.size(); ++i) {
      prefix.push_back({.kind = PathStep::Kind::kIndex, .index = i});
      expand(node[i], steps, at + 1, prefix, out);
      prefix.pop_back();
    }
    return;
  }
  const YAML::Node next = child(node, step, path_text(prefix));
  prefix.push_back(step);
  if (!next.IsDefined()) {
    // An absent field: the rest of the path must be fields too, created as maps when set.
    for (size_t i = at + 1; i < steps.size(); ++i)
      if (steps[i].kind != PathStep::Kind::kField)
        throw std::invalid_argument(fmt::format(
            "there is no field '{}' in {} (its fields: {})", step.field,
            prefix.size() == 1 ? "the document" : path_text({prefix.begin(), prefix.end() - 1}),
            field_names(node)));
    for (size_t i = at + 1; i < steps.size(); ++i) prefix.push_back(steps[i]);
    out.push_back(prefix);
    prefix.resize(prefix.size() - (steps.size() - at - 1));
  } else {
    expand(next, steps, at + 1, prefix, out);
  }
  prefix.pop_back();
}

}  // namespace

std::optional<std::vector<PathStep>> parse_path(const std::string& text) {
  std::vector<PathStep> steps;
  size_t i = 0;
  while (i < text.size()) {
    if (!steps.empty()) {
      if (text[i] != '.') return std::nullopt;
      ++i;
    }
    const size_t begin = i;
    while (i < text.size() && field_char(text[i])) ++i;
    if (i == begin) return std::nullopt;
    steps.push_back({.kind = PathStep::Kind::kField, .field = text.substr(begin, i - begin)});
    while (i < text.size() && text[i] == '[') {
      const size_t close = text.find(']', i);
      if (close == std::string::npos) return std::nullopt;
      const std::string inside = text.substr(i + 1, close - i - 1);
      if (inside == "*") {
        steps.push_back({.kind = PathStep::Kind::kEvery});
      } else {
        if (inside.empty() || inside.size() > 9) return std::nullopt;
        for (char c : inside)
          if (c < '0' || c > '9') return std::nullopt;
        steps.push_back({.kind = PathStep::Kind::kIndex, .index = std::stoul(inside)});
      }
      i = close + 1;
    }
  }
  if (steps.empty()) return std::nullopt;
  return steps;
}

std::string path_text(const std::vector<PathStep>& steps) {
  std::string out;
  for (const PathStep& s : steps) {
    switch (s.kind) {
      case PathStep::Kind::kField:
        if (!out.empty()) out += '.';
        out += s.field;
        break;
      case PathStep::Kind::kIndex:
        out += fmt::format("[{}]", s.index);
        break;
      case PathStep::Kind::kEvery:
        out += "[*]";
        break;
    }
  }
  return out;
}

std::vector<std::vector<PathStep>> expand_path(const YAML::Node& root,
                                               const std::vector<PathStep>& steps) {
  std::vector<std::vector<PathStep>> out;
  std::vector<PathStep> prefix;
  try {
    expand(root, steps, 0, prefix, out);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path_text(steps) + ": " + e.what());
  }
  return out;
}

namespace {

// Adds `field: value` to the map `map`. The key is tagged as a plain scalar ("?"), as the
// parser tags the keys it reads, so the strict reader accepts it as a field name.
void add_field(YAML::Node& map, const std::string& field, const YAML::Node& value) {
  YAML::Node key(field);
  key.SetTag("?");
  map.force_insert(key, value);
}

}  // namespace

void set_at_path(YAML::Node root, const std::vector<PathStep>& concrete, const YAML::Node& value) {
  // Handles share the tree: assigning through the last one replaces the value inside `root`.
  // reset() moves a handle to another node; `=` would overwrite the node it holds.
  YAML::Node current;
  current.reset(root);
  for (size_t i = 0; i + 1 < concrete.size(); ++i) {
    const PathStep& s = concrete[i];
    if (s.kind == PathStep::Kind::kField && !std::as_const(current)[s.field].IsDefined())
      add_field(current, s.field, YAML::Node(YAML::NodeType::Map));
    YAML::Node next = s.kind == PathStep::Kind::kField ? current[s.field] : current[s.index];
    current.reset(next);
  }
  const PathStep& last = concrete.back();
  if (last.kind == PathStep::Kind::kIndex)
    current[last.index] = YAML::Clone(value);
  else if (std::as_const(current)[last.field].IsDefined())
    current[last.field] = YAML::Clone(value);
  else
    add_field(current, last.field, YAML::Clone(value));
}

YAML::Node value_at_path(const YAML::Node& root, const std::vector<PathStep>& concrete) {
  YAML::Node current;
  current.reset(root);
  for (const PathStep& s : concrete) {
    const YAML::Node& node = current;  // const access: never adds an entry
    const YAML::Node next = s.kind == PathStep::Kind::kField ? node[s.field] : node[s.index];
    if (!next.IsDefined()) return next;
    current.reset(next);
  }
  return current;
}

}  // namespace gantry
