#include "web/server/scenario_paths.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <vector>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/config/quote.hpp"

namespace gantry::web {

namespace {

namespace fs = std::filesystem;

fs::path canonical_or_absolute(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal() : c;
}

struct PathCheck {
  const std::string& file_label;
  const fs::path& folder;
  const fs::path& relative_to;
  std::vector<InputError> errors;

  void fail(const YAML::Node& at, const std::string& field, const std::string& message) {
    errors.emplace_back(SourceLocation{file_label, at.Mark().line + 1, at.Mark().column + 1}, field,
                        message);
  }

  void check(const YAML::Node& value, const std::string& field) {
    if (!value.IsScalar() || value.Scalar().empty()) return;  // the loader says what it expects
    const std::string& text = value.Scalar();
    const std::string allowed =
        "a posted scenario may only name files of the scenarios folder, by a path relative to "
        "it (such as data/openb/openb_node_list_gpu_node.csv)";
    if (fs::path(text).is_absolute()) {
      fail(value, field, quote_for_message(text) + " is an absolute path; " + allowed);
    } else if (!inside_folder(folder, relative_to / text)) {
      fail(value, field,
           quote_for_message(text) + " leads out of the scenarios folder; " + allowed);
    }
  }

  void walk(const YAML::Node& node, const std::string& path) {
    if (node.IsMap()) {
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) continue;
        const std::string& key = entry.first.Scalar();
        const std::string field = path.empty() ? key : path + "." + key;
        if (key == "file") {
          check(entry.second, field);
        } else {
          walk(entry.second, field);
        }
      }
    } else if (node.IsSequence()) {
      for (size_t i = 0; i < node.size(); ++i) walk(node[i], path + "[" + std::to_string(i) + "]");
    }
  }
};

void erase_all(std::string& text, const std::string& what) {
  if (what.empty()) return;
  for (size_t at; (at = text.find(what)) != std::string::npos;) text.erase(at, what.size());
}

}  // namespace

void check_data_paths(const std::string& text, const std::string& file_label,
                      const fs::path& folder, const fs::path& relative_to) {
  YAML::Node doc;
  try {
    doc = YAML::Load(text);
  } catch (const YAML::Exception&) {
    return;  // the loader reports the syntax error with its position
  }
  const fs::path from = relative_to.empty() ? folder : relative_to;
  PathCheck check{file_label, folder, from, {}};
  check.walk(doc, "");
  if (check.errors.size() == 1) throw check.errors.front();
  if (!check.errors.empty()) throw InputErrors(std::move(check.errors));
}

bool inside_folder(const fs::path& folder, const fs::path& path) {
  const fs::path root = canonical_or_absolute(folder);
  const fs::path p = canonical_or_absolute(path);
  const auto [r, q] = std::mismatch(root.begin(), root.end(), p.begin(), p.end());
  return r == root.end() && q != p.end();
}

std::string relative_to_folder(std::string text, const fs::path& folder) {
  // The longer form first: the canonical path may extend the one given (a link inside it).
  std::vector<std::string> forms = {canonical_or_absolute(folder).string() + "/",
                                    fs::absolute(folder).lexically_normal().string()};
  if (!forms[1].empty() && forms[1].back() != '/') forms[1] += '/';
  std::sort(forms.begin(), forms.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const std::string& f : forms) erase_all(text, f);
  return text;
}

void require_trace_inside(const fs::path& folder, const TraceRef& ref, const std::string& place) {
  if (!inside_folder(folder, ref.path))
    throw InputError(ref.where, "file", quote_for_message(ref.file) + " is not a file of " + place);
}

TraceLoaders confined_trace_loaders(const fs::path& folder, const std::string& place) {
  TraceLoaders readers = trace_loaders();
  return {.topology =
              [folder, place, topology = readers.topology](const TraceRef& ref) {
                require_trace_inside(folder, ref, place);
                return topology(ref);
              },
          .requests =
              [folder, place, requests = readers.requests](const LoadSpec& load) {
                if (!inside_folder(folder, load.trace_file))
                  throw InputError(load.trace_where, load.trace_field, "not a file of " + place);
                return requests(load);
              }};
}

}  // namespace gantry::web
