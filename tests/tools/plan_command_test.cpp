// `gantry plan` as a user runs it (the real program): the JSON the issue specifies, the same
// answer on one thread or two, the frontier chart, and bad input with exit code 2.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/tools/cli_harness.hpp"

namespace gantry {
namespace plan_command_test {

using testing::CliTest;
using testing::Outcome;

class PlanCommand : public CliTest {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  // next-year.yaml at its first step only (a copy beside its base).
  std::string first_step() {
    std::ifstream in(std::string(GANTRY_SOURCE_DIR) + "/scenarios/plans/two-generations.yaml");
    std::stringstream base;
    base << in.rdbuf();
    write("two-generations.yaml", base.str());
    return write("p.yaml", R"(apiVersion: gantry.dev/v1
kind: Plan
metadata: {name: p}
spec:
  base: two-generations.yaml
  pools:
  - {class: hgx-h100, min: 0, max: 24, pricePerNodeHour: 98}
  - {class: dgx-a100, min: 0, max: 24, pricePerNodeHour: 33}
  slo: {wait.p95: 1h}
)");
  }
};

TEST_F(PlanCommand, JsonHasTheAnswerItsEvidenceAndTheSearchCost) {
  const std::string file = first_step();
  const Outcome one =
      run("plan " + file + " --format json --parallel 1 --out " + (dir_ / "o1").string());
  ASSERT_EQ(one.exit_code(), 0) << one.err;
  const Outcome two =
      run("plan " + file + " --format json --parallel 2 --out " + (dir_ / "o2").string());
  ASSERT_EQ(two.exit_code(), 0) << two.err;
  auto a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(two.out);
  a.erase("chart");
  b.erase("chart");
  EXPECT_EQ(a, b) << "the answer does not depend on the threads";
  const auto& step = a["steps"][0];
  EXPECT_EQ(step["growth"], 1.0);
  const auto& answer = step["answer"];
  ASSERT_TRUE(answer.is_object()) << one.out;
  const int64_t h100 = answer["pools"]["hgx-h100"], a100 = answer["pools"]["dgx-a100"];
  EXPECT_DOUBLE_EQ(answer["costPerHour"].get<double>(), 98.0 * h100 + 33.0 * a100);
  EXPECT_TRUE(answer["metrics"]["wait.p95"]["holds"].get<bool>());
  EXPECT_LE(answer["metrics"]["wait.p95"]["pessimistic"].get<double>(), 3600);
  for (const auto& n : step["neighbours"]) {
    EXPECT_FALSE(n["feasible"].get<bool>()) << n;
    EXPECT_LT(n["costPerHour"].get<double>(), answer["costPerHour"].get<double>());
  }
  EXPECT_GE(step["frontier"].size(), 2u);
  EXPECT_GT(a["simulations"].get<int>(), 0);
  EXPECT_DOUBLE_EQ(a["fullGrid"]["configurations"].get<double>(), 25.0 * 25.0);
  EXPECT_LT(a["simulations"].get<double>(), a["fullGrid"]["simulations"].get<double>());
  EXPECT_TRUE(std::filesystem::exists(dir_ / "o1" / "frontier.svg"));
}

TEST_F(PlanCommand, BadInputIsExitTwoWithTheLine) {
  first_step();
  const std::string bad = write("bad.yaml", R"(apiVersion: gantry.dev/v1
kind: Plan
metadata: {name: bad}
spec:
  base: two-generations.yaml
  pools:
  - {class: hgx-b200, min: 0, max: 4, pricePerNodeHour: 98}
  slo: {wait.p95: 1h}
)");
  const Outcome o = run("plan " + bad + " --out " + (dir_ / "b").string());
  EXPECT_EQ(o.exit_code(), 2);
  EXPECT_NE(o.err.find(bad + ":7:5: spec.pools[0].class: two-generations.yaml declares no node "
                             "class 'hgx-b200' (its classes: hgx-h100, dgx-a100)"),
            std::string::npos)
      << o.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "b"));
}

}  // namespace plan_command_test
}  // namespace gantry
