#include "web/server/pipeline_filter.hpp"

#include <algorithm>
#include <cctype>

namespace gantry::web {

namespace {

// ASCII case folding: names are ASCII, and a description's other letters match as written.
bool contains_folded(const std::string& text, const std::string& part) {
  const auto fold = [](unsigned char c) { return static_cast<char>(std::tolower(c)); };
  const auto it = std::search(text.begin(), text.end(), part.begin(), part.end(),
                              [&](char a, char b) { return fold(a) == fold(b); });
  return it != text.end();
}

}  // namespace

std::optional<std::string> pipeline_state_error(const std::string& state) {
  if (state.empty() || state == "paused" || state == "active" || state == "failing")
    return std::nullopt;
  return "?state: expected paused, active or failing, got '" + state + "'";
}

bool pipeline_matches(const PipelineFilter& filter, const PipelineSpec& spec, bool paused,
                      const std::optional<std::string>& last_run_state) {
  if (!filter.q.empty() && !contains_folded(spec.name, filter.q) &&
      !contains_folded(spec.description, filter.q))
    return false;
  if (!filter.tag.empty() &&
      std::find(spec.tags.begin(), spec.tags.end(), filter.tag) == spec.tags.end())
    return false;
  if (!filter.owner.empty() && spec.owner != filter.owner) return false;
  if (filter.state == "paused" && !paused) return false;
  if (filter.state == "active" && paused) return false;
  if (filter.state == "failing" && last_run_state != "failed") return false;
  return true;
}

}  // namespace gantry::web
