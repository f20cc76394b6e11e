// The --events file of gantry simulate (sim/fault_events.hpp): parsed events in time order,
// events past the end reported, and every error's message with its line and column counted in
// the texts below (an item "- {" puts its first key in column 4).

#include "sim/fault_events.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "engine/config/config_errors.hpp"
#include "tests/sim/fault_fixtures.hpp"

namespace gantry {
namespace fault_events_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::kFaultT0;

// testing::mixed_cluster(): rack r0 = nodes r0-n0 (id 0), r0-n1 (1), 8 A100 each; rack r1 =
// r1-n0 (2), r1-n1 (3), 8 H100 each; rack r2 = r2-n0 (4), no GPUs. The scenario starts at
// kFaultT0 = 2026-01-01T00:00:00Z and ends two days later.
const Time kEnd = kFaultT0 + days(2);

std::vector<FaultEvent> load(const std::string& text, std::vector<InputError>* skipped = nullptr,
                             std::optional<Time> end = kEnd) {
  return load_fault_events_text(text, "e.yaml", testing::mixed_cluster(), kFaultT0, end, skipped);
}

// Every error's "file:line:col: field: message".
std::vector<std::string> errors_of(const std::string& text) {
  try {
    load(text);
  } catch (const InputErrors& e) {
    std::vector<std::string> out;
    for (const InputError& x : e.errors()) out.push_back(x.what());
    return out;
  } catch (const InputError& e) {
    return {e.what()};
  }
  ADD_FAILURE() << "expected errors for:\n" << text;
  return {};
}

// clang-format off
const std::string kAll =
    "- {at: 2026-01-01T03:00:00Z, action: node-down, node: r0-n0, for: 6h}\n"            // 1
    "- {at: 30h, action: node-up, node: r0-n0}\n"                                         // 2
    "- {at: 2026-01-01T03:00:00Z, action: rack-down, rack: r1, for: 1h}\n"                // 3
    "- {at: 1h, action: rack-up, rack: r1}\n"                                             // 4
    "- {at: 2h, action: gpu-fail, node: r1-n1, gpu: 7}\n"                                 // 5
    "- {at: 3h, action: gpu-repair, node: r1-n1, gpu: 7}\n"                               // 6
    "- {at: 2026-01-01T01:00:00+01:00, action: drain, node: r2-n0, deadline: 2h, for: 4h}\n"  // 7
    "- {at: 3d, action: node-down, node: r0-n1}\n"                                        // 8
    "- {at: 2d, action: node-down, node: r0-n1}\n";                                       // 9
// clang-format on

TEST(FaultEvents, EveryActionInTimeOrder) {
  std::vector<InputError> skipped;
  const std::vector<FaultEvent> e = load(kAll, &skipped);
  // By time, file order at one instant: line 7 (01:00+01:00 = 00:00Z, 0 h), 4 (1 h), 5 (2 h),
  // then at 3 h lines 1, 3, 6; then 2 (30 h) and 9 (2 d, exactly the end: kept). Line 8 (3 d)
  // is past the end.
  ASSERT_EQ(e.size(), 8u);
  EXPECT_EQ(e[0].at, kFaultT0);
  EXPECT_EQ(e[0].action, FaultAction::kDrain);
  EXPECT_EQ(e[0].node, 4);
  EXPECT_EQ(e[0].deadline, hours(2));
  EXPECT_EQ(e[0].duration, hours(4));
  EXPECT_EQ(e[1].at, kFaultT0 + hours(1));
  EXPECT_EQ(e[1].action, FaultAction::kRackUp);
  EXPECT_EQ(e[1].rack, 1);
  EXPECT_EQ(e[1].node, -1);
  EXPECT_EQ(e[2].at, kFaultT0 + hours(2));
  EXPECT_EQ(e[2].action, FaultAction::kGpuFail);
  EXPECT_EQ(e[2].node, 3);
  EXPECT_EQ(e[2].gpu, 7);
  EXPECT_EQ(e[2].duration, Duration{});  // no `for`: until a gpu-repair
  EXPECT_EQ(e[3].at, kFaultT0 + hours(3));
  EXPECT_EQ(e[3].action, FaultAction::kNodeDown);
  EXPECT_EQ(e[3].node, 0);
  EXPECT_EQ(e[3].duration, hours(6));
  EXPECT_EQ(e[4].action, FaultAction::kRackDown);
  EXPECT_EQ(e[4].rack, 1);
  EXPECT_EQ(e[4].duration, hours(1));
  EXPECT_EQ(e[5].action, FaultAction::kGpuRepair);
  EXPECT_EQ(e[5].at, kFaultT0 + hours(3));
  EXPECT_EQ(e[6].at, kFaultT0 + hours(30));
  EXPECT_EQ(e[6].action, FaultAction::kNodeUp);
  EXPECT_EQ(e[7].at, kEnd);
  for (const FaultEvent& x : e) EXPECT_EQ(x.cause, "injected");
  // Line 8's `at` value: "- {at: " is 7 characters, so column 8.
  ASSERT_EQ(skipped.size(), 1u);
  EXPECT_EQ(std::string(skipped[0].what()),
            "e.yaml:8:8: [7].at: the event is after the scenario ends (2026-01-03T00:00:00Z), so "
            "it does not happen");
}

TEST(FaultEvents, WithoutAnEndNothingIsSkipped) {
  std::vector<InputError> skipped;
  EXPECT_EQ(load(kAll, &skipped, std::nullopt).size(), 9u);
  EXPECT_TRUE(skipped.empty());
}

TEST(FaultEvents, Errors) {
  // clang-format off
  const std::string text =
      "- {at: 2025-12-31T23:00:00Z, action: node-down, node: r0-n0}\n"  // 1: before the start
      "- {at: 1h, action: explode}\n"                                   // 2
      "- {at: 1h, action: node-up, node: r0-n0, gpu: 1}\n"              // 3
      "- {at: 1h, action: gpu-fail, node: r0-n0}\n"                     // 4
      "- {at: 1h, action: gpu-fail, node: r0-n0, gpu: 8}\n"             // 5
      "- {at: 1h, action: rack-down, node: r0-n0}\n"                    // 6
      "- {at: 1h, action: node-down, node: nope}\n"                     // 7
      "- {at: 1h, action: drain, node: r0-n0}\n"                        // 8
      "- {at: 1h, action: gpu-fail, node: r2-n0, gpu: 0}\n"             // 9
      "- {at: soon, action: node-up, node: r0-n0}\n"                    // 10
      "- {at: 1h, action: node-down, node: r0-n0, for: 0s}\n";          // 11
  // clang-format on
  // Columns: "- {" puts the first key at 4; "at: " puts its value at 8; "at: 1h, action: " (16)
  // puts the action at 20. Line 3: "at: 1h, action: node-up, node: r0-n0, gpu: " is 43: 47.
  // Line 5: "at: 1h, action: gpu-fail, node: r0-n0, gpu: " is 44: 48. Line 6: "at: 1h, action:
  // rack-down, node: " is 33: 37. Line 7: "at: 1h, action: node-down, node: " is 33: 37. Line 9
  // as line 5: 48. Line 11: "at: 1h, action: node-down, node: r0-n0, for: " is 45: 49. Missing
  // fields are reported at the item's '{', column 3.
  EXPECT_THAT(
      errors_of(text),
      ElementsAre(
          "e.yaml:1:8: [0].at: the event is before the scenario starts (2026-01-01T00:00:00Z)",
          "e.yaml:2:20: [1].action: unknown value 'explode'; expected one of: node-down, "
          "node-up, rack-down, rack-up, gpu-fail, gpu-repair, drain",
          "e.yaml:3:47: [2].gpu: node-up does not take gpu",
          "e.yaml:4:3: [3].gpu: missing required field 'gpu'",
          "e.yaml:5:48: [4].gpu: node 'r0-n0' has 8 GPUs, numbered 0 to 7; got 8",
          "e.yaml:6:3: [5].rack: missing required field 'rack'",
          "e.yaml:6:37: [5].node: rack-down does not take node",
          "e.yaml:7:37: [6].node: no node named 'nope' in the cluster",
          "e.yaml:8:3: [7].for: missing required field 'for'",
          "e.yaml:9:48: [8].gpu: node 'r2-n0' has no GPUs",
          HasSubstr("e.yaml:10:8: [9].at: expected an RFC 3339 time such as "
                    "2026-01-02T03:00:00Z or a duration from the scenario's start such as 30h, "
                    "got 'soon'"),
          "e.yaml:11:49: [10].for: expected a duration greater than zero, got '0s'"));
}

TEST(FaultEvents, UnknownRackAndField) {
  // "- {at: 1h, action: rack-up, rack: " is 34 characters: r9 at 35. Line 2: "- {at: 1h,
  // action: node-up, node: r0-n0, " is 41: colour at 42.
  EXPECT_THAT(errors_of("- {at: 1h, action: rack-up, rack: r9}\n"
                        "- {at: 1h, action: node-up, node: r0-n0, colour: red}\n"),
              ElementsAre("e.yaml:1:35: [0].rack: no rack named 'r9' in the cluster",
                          HasSubstr("e.yaml:2:42: [1].colour: unknown field 'colour'")));
}

TEST(FaultEvents, NotAList) {
  EXPECT_THAT(errors_of("at: 1h\n"), ElementsAre(HasSubstr("e.yaml:1:1: expected a list")));
  EXPECT_TRUE(load("[]\n").empty());
}

TEST(FaultEvents, ReadsAFile) {
  const std::string path = std::string(GANTRY_BINARY_DIR) + "/fault_events_test.yaml";
  {
    std::ofstream out(path);
    out << "- {at: 1h, action: node-down, node: r1-n0}\n";
  }
  const std::vector<FaultEvent> e =
      load_fault_events(path, testing::mixed_cluster(), kFaultT0, std::nullopt);
  std::remove(path.c_str());
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].node, 2);
  EXPECT_EQ(e[0].at, kFaultT0 + hours(1));
  EXPECT_THROW(load_fault_events(path, testing::mixed_cluster(), kFaultT0, std::nullopt),
               FileError);
}

}  // namespace fault_events_test
}  // namespace gantry
