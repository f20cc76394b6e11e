#include "workflow/pipeline/dag.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <functional>
#include <map>
#include <queue>
#include <stdexcept>
#include <utility>

namespace gantry {

namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
using Edge = boost::graph_traits<Graph>::edge_descriptor;

// Records the DFS tree (to walk a back edge's cycle) and the back edges themselves.
class CycleRecorder : public boost::default_dfs_visitor {
 public:
  CycleRecorder(std::vector<Vertex>& parent, std::vector<std::pair<Vertex, Vertex>>& back)
      : parent_(&parent), back_(&back) {}
  void tree_edge(Edge e, const Graph& g) { (*parent_)[boost::target(e, g)] = boost::source(e, g); }
  void back_edge(Edge e, const Graph& g) {
    back_->emplace_back(boost::source(e, g), boost::target(e, g));
  }

 private:
  // Pointers: Boost copies visitors by value, the results must outlive the copies.
  std::vector<Vertex>* parent_;
  std::vector<std::pair<Vertex, Vertex>>* back_;
};

std::string quote_dot(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

const char* template_name(TaskTemplate t) {
  switch (t) {
    case TaskTemplate::kContainer:
      return "container";
    case TaskTemplate::kTFJob:
      return "tfjob";
    case TaskTemplate::kPyTorchJob:
      return "pytorchjob";
    case TaskTemplate::kMPIJob:
      return "mpijob";
    case TaskTemplate::kXGBoostJob:
      return "xgboostjob";
    case TaskTemplate::kRayJob:
      return "rayjob";
    case TaskTemplate::kSparkJob:
      return "sparkjob";
  }
  return "?";
}

const char* trigger_rule_name(TriggerRule r) {
  switch (r) {
    case TriggerRule::kAllSuccess:
      return "all_success";
    case TriggerRule::kAllFailed:
      return "all_failed";
    case TriggerRule::kAllDone:
      return "all_done";
    case TriggerRule::kOneSuccess:
      return "one_success";
    case TriggerRule::kOneFailed:
      return "one_failed";
    case TriggerRule::kNoneFailed:
      return "none_failed";
    case TriggerRule::kAlways:
      return "always";
  }
  return "?";
}

}  // namespace

std::vector<DagCycle> find_cycles(const std::vector<std::vector<size_t>>& upstream) {
  const size_t n = upstream.size();
  Graph g(n);
  for (size_t v = 0; v < n; ++v)
    for (size_t u : upstream[v])
      if (u < n) boost::add_edge(u, v, g);

  std::vector<Vertex> parent(n);
  std::vector<std::pair<Vertex, Vertex>> back;
  std::vector<boost::default_color_type> colors(n);
  boost::depth_first_search(g, boost::visitor(CycleRecorder(parent, back))
                                   .color_map(boost::make_iterator_property_map(
                                       colors.begin(), boost::get(boost::vertex_index, g))));

  std::vector<DagCycle> cycles;
  for (const auto& [from, to] : back) {
    // `to` is gray when the back edge is seen: an ancestor of `from` in the DFS tree.
    DagCycle cycle;
    for (Vertex v = from; v != to; v = parent[v]) cycle.push_back(v);
    cycle.push_back(to);
    std::reverse(cycle.begin(), cycle.end());
    cycles.push_back(std::move(cycle));
  }
  return cycles;
}

std::string describe_cycle(const DagCycle& cycle, const std::vector<std::string>& names) {
  std::string out;
  for (size_t v : cycle) out += names.at(v) + " -> ";
  return cycle.empty() ? out : out + names.at(cycle.front());
}

PipelineDag::PipelineDag(const PipelineSpec& spec) {
  const size_t n = spec.tasks.size();
  std::map<std::string_view, size_t> index;
  for (size_t i = 0; i < n; ++i) {
    names_.push_back(spec.tasks[i].name);
    if (!index.emplace(spec.tasks[i].name, i).second)
      throw std::invalid_argument("pipeline " + spec.name + ": task '" + spec.tasks[i].name +
                                  "' is declared twice");
  }
  upstream_.resize(n);
  downstream_.resize(n);
  for (size_t v = 0; v < n; ++v) {
    for (const std::string& dep : spec.tasks[v].depends_on) {
      const auto it = index.find(dep);
      if (it == index.end())
        throw std::invalid_argument("pipeline " + spec.name + ": task '" + names_[v] +
                                    "' depends on unknown task '" + dep + "'");
      std::vector<size_t>& up = upstream_[v];
      if (std::find(up.begin(), up.end(), it->second) == up.end()) up.push_back(it->second);
    }
  }
  // Filled in index order of the downstream task, hence declaration order.
  for (size_t v = 0; v < n; ++v)
    for (size_t u : upstream_[v]) downstream_[u].push_back(v);

  if (const std::vector<DagCycle> cycles = find_cycles(upstream_); !cycles.empty())
    throw std::invalid_argument("pipeline " + spec.name +
                                ": cycle: " + describe_cycle(cycles.front(), names_));

  // Kahn's algorithm, always taking the earliest declared ready task.
  std::vector<size_t> waiting(n);
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t v = 0; v < n; ++v) {
    waiting[v] = upstream_[v].size();
    if (waiting[v] == 0) ready.push(v);
  }
  while (!ready.empty()) {
    const size_t u = ready.top();
    ready.pop();
    order_.push_back(u);
    for (size_t v : downstream_[u])
      if (--waiting[v] == 0) ready.push(v);
  }
  for (size_t v = 0; v < n; ++v) {
    if (downstream_[v].empty()) leaves_.push_back(v);
    if (upstream_[v].empty()) roots_.push_back(v);
  }
}

std::optional<size_t> PipelineDag::find(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i)
    if (names_[i] == name) return i;
  return std::nullopt;
}

std::string to_dot(const PipelineSpec& spec) {
  std::string out = "digraph " + quote_dot(spec.namespace_name + "/" + spec.name) + " {\n";
  out += "  rankdir=LR;\n  node [shape=box];\n";
  for (const TaskSpec& t : spec.tasks) {
    std::string label = t.name;
    if (t.template_kind != TaskTemplate::kContainer)
      label += std::string("\n") + template_name(t.template_kind);
    if (t.trigger_rule != TriggerRule::kAllSuccess)
      label += std::string("\n") + trigger_rule_name(t.trigger_rule);
    out += "  " + quote_dot(t.name);
    std::vector<std::string> attributes;
    if (label != t.name) attributes.push_back("label=" + quote_dot(label));
    if (t.skip) attributes.push_back("style=dashed");
    if (!attributes.empty()) {
      out += " [";
      for (size_t i = 0; i < attributes.size(); ++i) out += (i ? ", " : "") + attributes[i];
      out += "]";
    }
    out += ";\n";
  }
  for (const TaskSpec& t : spec.tasks)
    for (const std::string& dep : t.depends_on)
      out += "  " + quote_dot(dep) + " -> " + quote_dot(t.name) + ";\n";
  return out + "}\n";
}

}  // namespace gantry
