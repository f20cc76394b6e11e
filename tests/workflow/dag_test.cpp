// The task DAG: orders, upstream/downstream lists, leaves, cycles and the DOT dump, on small
// graphs whose answers are worked out by hand in each test.

#include "workflow/pipeline/dag.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace gantry {
namespace {

using Indices = std::vector<size_t>;

PipelineSpec pipeline(const std::vector<std::pair<std::string, std::vector<std::string>>>& tasks) {
  PipelineSpec p;
  p.name = "p";
  for (const auto& [name, deps] : tasks) {
    TaskSpec t;
    t.name = name;
    t.depends_on = deps;
    p.tasks.push_back(t);
  }
  return p;
}

TEST(PipelineDag, DiamondOrdersAndLeaves) {
  // a -> b, a -> c, b -> d, c -> d, plus a lone task e.
  const PipelineDag dag(
      pipeline({{"a", {}}, {"b", {"a"}}, {"c", {"a"}}, {"d", {"c", "b"}}, {"e", {}}}));
  EXPECT_EQ(dag.size(), 5u);
  EXPECT_EQ(dag.upstream(3), (Indices{2, 1}));  // dependsOn order
  EXPECT_EQ(dag.downstream(0), (Indices{1, 2}));
  EXPECT_TRUE(dag.downstream(3).empty());
  // Ready at first: a (0), e (4); take 0 -> b, c ready: {1, 2, 4}; take 1, 2 -> d ready:
  // {3, 4}; take 3, then 4.
  EXPECT_EQ(dag.topological_order(), (Indices{0, 1, 2, 3, 4}));
  EXPECT_EQ(dag.leaves(), (Indices{3, 4}));
  EXPECT_EQ(dag.roots(), (Indices{0, 4}));
  EXPECT_EQ(dag.find("c"), 2u);
  EXPECT_FALSE(dag.find("zz").has_value());
}

TEST(PipelineDag, OrderFollowsDependenciesWhenFileOrderDoesNot) {
  // Declared load, transform, extract; data flows extract -> transform -> load.
  const PipelineDag dag(
      pipeline({{"load", {"transform"}}, {"transform", {"extract"}}, {"extract", {}}}));
  EXPECT_EQ(dag.topological_order(), (Indices{2, 1, 0}));
  EXPECT_EQ(dag.leaves(), Indices{0});
  EXPECT_EQ(dag.roots(), Indices{2});
}

TEST(PipelineDag, RepeatedDependencyCountsOnce) {
  const PipelineDag dag(pipeline({{"a", {}}, {"b", {"a", "a"}}}));
  EXPECT_EQ(dag.upstream(1), Indices{0});
  EXPECT_EQ(dag.downstream(0), Indices{1});
}

TEST(PipelineDag, RejectsBrokenSpecs) {
  EXPECT_THROW(PipelineDag(pipeline({{"a", {"zz"}}})), std::invalid_argument);
  EXPECT_THROW(PipelineDag(pipeline({{"a", {}}, {"a", {}}})), std::invalid_argument);
  try {
    PipelineDag(pipeline({{"a", {"c"}}, {"b", {"a"}}, {"c", {"b"}}}));
    FAIL() << "expected a cycle";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "pipeline p: cycle: a -> b -> c -> a");
  }
}

TEST(FindCycles, BackEdgesGiveCycles) {
  // Task i depends on upstream[i]. 0 <- 2, 1 <- 0, 2 <- 1: edges 2->0, 0->1, 1->2.
  // DFS from 0: 0->1, 1->2 tree edges; 2->0 back edge: cycle [0, 1, 2].
  EXPECT_EQ(find_cycles({{2}, {0}, {1}}), (std::vector<DagCycle>{{0, 1, 2}}));
  // A self-dependency is a cycle of one.
  EXPECT_EQ(find_cycles({{}, {1}}), (std::vector<DagCycle>{{1}}));
  // Acyclic: nothing. Out-of-range indices are ignored.
  EXPECT_TRUE(find_cycles({{}, {0}, {0, 1, 7}}).empty());
  EXPECT_EQ(describe_cycle({0, 1, 2}, {"x", "y", "z"}), "x -> y -> z -> x");
  EXPECT_EQ(describe_cycle({1}, {"x", "y"}), "y -> y");
}

TEST(PipelineDag, DotDump) {
  PipelineSpec p =
      pipeline({{"extract", {}}, {"train", {"extract"}}, {"report", {"extract", "train"}}});
  p.name = "etl";
  p.namespace_name = "team-a";
  p.tasks[1].template_kind = TaskTemplate::kPyTorchJob;
  p.tasks[2].trigger_rule = TriggerRule::kAllDone;
  p.tasks[2].skip = true;
  EXPECT_EQ(to_dot(p),
            "digraph \"team-a/etl\" {\n"
            "  rankdir=LR;\n"
            "  node [shape=box];\n"
            "  \"extract\";\n"
            "  \"train\" [label=\"train\\npytorchjob\"];\n"
            "  \"report\" [label=\"report\\nall_done\", style=dashed];\n"
            "  \"extract\" -> \"train\";\n"
            "  \"extract\" -> \"report\";\n"
            "  \"train\" -> \"report\";\n"
            "}\n");
}

TEST(PipelineDag, DotEscapesQuotes) {
  PipelineSpec p = pipeline({{"a\"b", {}}});
  EXPECT_NE(to_dot(p).find("  \"a\\\"b\";\n"), std::string::npos) << to_dot(p);
}

}  // namespace
}  // namespace gantry
