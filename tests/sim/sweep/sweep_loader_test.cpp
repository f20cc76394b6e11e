// Reading kind: Sweep files (sim/sweep/sweep_loader.hpp): the points a sweep makes, and the
// error of each mistake at its line and field.

#include "sim/sweep/sweep_loader.hpp"

#include <gtest/gtest.h>

#include "engine/config/config_errors.hpp"
#include "engine/config/reader.hpp"
#include "tests/sim/sweep/sweep_fixture.hpp"

namespace gantry {
namespace sweep_loader_test {

using testing::SweepFolder;

class SweepLoader : public SweepFolder {
 protected:
  std::string error(const std::string& spec) {
    const std::string file = sweep(spec);
    try {
      load_sweep_file(file);
    } catch (const InputError& e) {
      return e.what();
    }
    ADD_FAILURE() << "expected an error for\n" << spec;
    return "";
  }
};

TEST_F(SweepLoader, TheProductOfTheAxesInOrderWithTheLastAxisFastest) {
  const SweepSpec s = load_sweep_file(sweep(R"(  seeds: 3
  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, spread]}
  - {name: nodes, path: "spec.cluster.racks[*].nodes", values: [1, 2, 4]}
)"));
  EXPECT_EQ(s.seeds, 3);
  EXPECT_EQ(s.base, (dir_ / "base.yaml").string());
  ASSERT_EQ(s.points.size(), 6u);
  EXPECT_EQ(s.points[0].values[0].text, "binpack");
  EXPECT_EQ(s.points[0].values[1].text, "1");
  EXPECT_EQ(s.points[2].values[1].text, "4");
  EXPECT_EQ(s.points[3].values[0].text, "spread");
  EXPECT_EQ(s.points[5].values[1].where.line, 9);
  EXPECT_EQ(s.metrics, (std::vector<std::string>{"wait.p95", "jct.mean", "gpu.allocated"}));
}

TEST_F(SweepLoader, PointsListCombinationsInstead) {
  const SweepSpec s = load_sweep_file(sweep(R"(  axes:
  - {name: placement, path: spec.policy.placement}
  - {name: nodes, path: "spec.cluster.racks[*].nodes"}
  points:
  - {placement: binpack, nodes: 1}
  - {nodes: 4, placement: spread}
  metrics: [wait.max, goodput, service.chat.p99]
)"));
  ASSERT_EQ(s.points.size(), 2u);
  EXPECT_EQ(s.points[1].values[0].text, "spread");
  EXPECT_EQ(s.points[1].values[1].text, "4");
  EXPECT_EQ(s.metrics.size(), 3u);
}

TEST_F(SweepLoader, EachMistakeIsNamedAtItsLineAndField) {
  const std::string file = (dir_ / "sweep.yaml").string();
  EXPECT_EQ(error("  axes:\n  - {name: n, path: spec..x, values: [1]}\n"),
            file +
                ":7:21: spec.axes[0].path: expected a field path such as "
                "spec.cluster.racks[*].nodes (fields separated by '.', items as [0] or [*]), "
                "got 'spec..x'");
  EXPECT_NE(error("  axes:\n  - {name: n, path: spec.x, values: [1]}\n  metrics: [wait.p96]\n")
                .find(file + ":8:13: spec.metrics[0]: unknown metric 'wait.p96'; expected one "
                             "of: wait.mean"),
            std::string::npos);
  EXPECT_EQ(error("  axes:\n  - {name: n, path: spec.x, values: [1]}\n"
                  "  - {name: n, path: spec.y, values: [2]}\n"),
            file + ":8:5: spec.axes[1]: axis name 'n' is given twice");
  EXPECT_EQ(error("  axes:\n  - {name: seed, path: spec.x, values: [1]}\n"),
            file +
                ":7:12: spec.axes[0].name: 'seed' is a column of every sweep's results; "
                "name the axis otherwise");
  EXPECT_EQ(error("  axes:\n  - {name: n, path: spec.x}\n"),
            file +
                ":7:5: spec.axes: axis 'n' has no values (give `values:`, or list "
                "combinations under `points:`)");
  EXPECT_EQ(error("  axes:\n  - {name: n, path: spec.x}\n  points:\n  - {m: 1}\n"),
            file + ":9:5: spec.points[0]: missing a value for axis 'n'\n" + file +
                ":9:6: spec.points[0].m: unknown axis 'm'; the axes are: n");
  EXPECT_EQ(error("  seeds: 0\n  axes:\n  - {name: n, path: spec.x, values: [1]}\n"),
            file + ":6:10: spec.seeds: expected an integer from 1 to 1000, got '0'");
  EXPECT_EQ(
      error("  seeds: 1000\n  axes:\n  - {name: n, path: spec.x, values: [1, 2, 3, 4, 5, 6, "
            "7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, "
            "27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, "
            "46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, "
            "65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, "
            "84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100, 101]}\n"),
      file + ":5:3: spec: 101 points × 1000 seeds = 101000 runs; a sweep runs at most 100000");
}

TEST_F(SweepLoader, TheBaseMustExistBesideTheSweepFile) {
  const std::string file = write("s2.yaml",
                                 "apiVersion: gantry.dev/v1\nkind: Sweep\nmetadata: {name: s}\n"
                                 "spec:\n  base: nope.yaml\n  axes:\n"
                                 "  - {name: n, path: spec.x, values: [1]}\n");
  try {
    load_sweep_file(file);
    FAIL() << "expected an error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              file + ":5:9: spec.base: no such file: " + (dir_ / "nope.yaml").string());
  }
}

// The form the issue wrote, a path with [ ] unquoted inside {...}, is not YAML; the error
// says how to write it.
TEST_F(SweepLoader, AnUnquotedPathWithBracketsInAFlowMapGetsAHint) {
  const std::string e = error("  axes:\n  - {name: n, path: spec.racks[*].nodes, values: [1]}\n");
  EXPECT_NE(e.find("YAML syntax error"), std::string::npos) << e;
  EXPECT_NE(e.find("inside {...} a path with [ ] must be quoted: path: "
                   "\"spec.cluster.racks[*].nodes\""),
            std::string::npos)
      << e;
}

}  // namespace sweep_loader_test
}  // namespace gantry
