#pragma once
// The task graph of one pipeline: which task waits for which, in what order tasks can run, and
// which tasks end a run (its leaves decide the run's state, issue #4 "Run state").
//
// Tasks are named by their index in PipelineSpec::tasks (declaration order). An edge u -> v
// means "v depends on u" (u is upstream of v), the direction data flows and the direction the
// DOT dump draws.
//
// Cycle finding uses Boost.Graph's depth-first search (back edges). Orders are deterministic:
// every tie is broken by declaration order, so the same file always gives the same output.
//
// | operation                  | cost          |
// |----------------------------|---------------|
// | PipelineDag construction   | O(V + E log V)|
// | upstream/downstream/leaves | O(1)          |
// | find_cycles                | O(V + E) plus the length of each reported cycle |

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workflow/pipeline/pipeline_spec.hpp"

namespace gantry {

// A cycle as a list of task indices [t0, t1, ..., tk]: t0 -> t1 -> ... -> tk -> t0, each arrow
// an edge upstream -> downstream. The closing edge tk -> t0 is the depth-first search's back
// edge, i.e. the dependsOn entry of task t0 that names task tk; a self-dependency is the cycle
// [t0] (t0 -> t0).
using DagCycle = std::vector<size_t>;

// Cycles of the graph whose task i depends on the tasks upstream[i] (indices < upstream.size();
// others are ignored). One cycle per back edge of a depth-first search that starts from tasks
// in index order and follows edges in the order given, so every graph with a cycle yields at
// least one and an acyclic graph yields none. Not every cycle of a graph with many is listed:
// fixing the reported ones and asking again finds the rest.
std::vector<DagCycle> find_cycles(const std::vector<std::vector<size_t>>& upstream);

// "a -> b -> c -> a" for a cycle over `names`.
std::string describe_cycle(const DagCycle& cycle, const std::vector<std::string>& names);

// The DAG of a valid pipeline. Immutable once built; safe to share between threads.
class PipelineDag {
 public:
  // Throws std::invalid_argument if a dependsOn name is not a task of `spec`, a task is named
  // twice, or the graph has a cycle (the loader reports all of these as InputErrors first, so
  // a spec from load_pipeline_* never throws here). A dependsOn entry given twice counts once.
  explicit PipelineDag(const PipelineSpec& spec);

  size_t size() const { return upstream_.size(); }
  const std::string& name(size_t task) const { return names_[task]; }
  // Index of the task called `name`, or nullopt.
  std::optional<size_t> find(std::string_view name) const;

  // Tasks `task` depends on, in the order of its dependsOn list.
  const std::vector<size_t>& upstream(size_t task) const { return upstream_[task]; }
  // Tasks that depend on `task`, in declaration order.
  const std::vector<size_t>& downstream(size_t task) const { return downstream_[task]; }

  // Every task, each after all its upstream tasks. Among tasks that are ready at the same
  // point the earliest declared comes first, so a file that lists tasks upstream-first gets
  // exactly its declaration order back.
  const std::vector<size_t>& topological_order() const { return order_; }
  // Tasks nothing depends on (they decide the run's state), in declaration order.
  const std::vector<size_t>& leaves() const { return leaves_; }
  // Tasks that depend on nothing (they start first), in declaration order.
  const std::vector<size_t>& roots() const { return roots_; }

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<size_t>> upstream_;
  std::vector<std::vector<size_t>> downstream_;
  std::vector<size_t> order_;
  std::vector<size_t> leaves_;
  std::vector<size_t> roots_;
};

// Graphviz DOT text of the pipeline's DAG ("every graph can dump itself"): one box per task in
// declaration order, labelled with its name and, when not the defaults, its template and
// trigger rule; skipped tasks dashed; one edge per dependsOn entry, upstream -> downstream,
// grouped by downstream task. Works on any spec (unknown dependsOn names still get a node, so
// a broken file can be drawn too). Names are quoted and escaped.
std::string to_dot(const PipelineSpec& spec);

}  // namespace gantry
