// Field paths of Sweep axes (sim/sweep/document_path.hpp): parsing, expansion against a
// document, and setting values, with the errors a user sees for a path that is not there.

#include "sim/sweep/document_path.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gantry {
namespace document_path_test {

const char* kDoc = R"(spec:
  policy: {placement: binpack}
  racks:
  - {name: r1, nodes: 8}
  - {name: r2, nodes: 8}
  - {name: r3, nodes: 4}
  empty: []
)";

std::string expand_error(const std::string& path) {
  try {
    expand_path(YAML::Load(kDoc), *parse_path(path));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an error for " << path;
  return "";
}

TEST(DocumentPath, ParsesFieldsIndicesAndWildcards) {
  const auto steps = parse_path("spec.workload.generators[0].mix[*].gpus");
  ASSERT_TRUE(steps.has_value());
  ASSERT_EQ(steps->size(), 7u);
  EXPECT_EQ((*steps)[2].field, "generators");
  EXPECT_EQ((*steps)[3].kind, PathStep::Kind::kIndex);
  EXPECT_EQ((*steps)[3].index, 0u);
  EXPECT_EQ((*steps)[5].kind, PathStep::Kind::kEvery);
  EXPECT_EQ(path_text(*steps), "spec.workload.generators[0].mix[*].gpus");
}

TEST(DocumentPath, RefusesWhatIsNotAPath) {
  for (const char* bad : {"", ".spec", "spec.", "spec..x", "spec[", "spec[-1]", "spec[x]", "spec[]",
                          "spec x", "spec/x", "[0]", "spec[1234567890]"})
    EXPECT_FALSE(parse_path(bad).has_value()) << bad;
}

TEST(DocumentPath, WildcardExpandsToEveryItemInOrder) {
  const auto paths = expand_path(YAML::Load(kDoc), *parse_path("spec.racks[*].nodes"));
  ASSERT_EQ(paths.size(), 3u);
  EXPECT_EQ(path_text(paths[0]), "spec.racks[0].nodes");
  EXPECT_EQ(path_text(paths[2]), "spec.racks[2].nodes");
}

TEST(DocumentPath, SetReplacesTheValueInTheDocument) {
  YAML::Node doc = YAML::Load(kDoc);
  for (const auto& p : expand_path(doc, *parse_path("spec.racks[*].nodes")))
    set_at_path(doc, p, YAML::Load("6"));
  set_at_path(doc, *parse_path("spec.policy.placement"), YAML::Load("spread"));
  EXPECT_EQ(doc["spec"]["racks"][0]["nodes"].as<int>(), 6);
  EXPECT_EQ(doc["spec"]["racks"][2]["nodes"].as<int>(), 6);
  EXPECT_EQ(doc["spec"]["racks"][1]["name"].as<std::string>(), "r2") << "siblings untouched";
  EXPECT_EQ(doc["spec"]["policy"]["placement"].as<std::string>(), "spread");
  EXPECT_EQ(value_at_path(doc, *parse_path("spec.racks[1].nodes")).as<int>(), 6);
}

// The last field may be absent: it is added (the document's reader judges it).
TEST(DocumentPath, AnAbsentLastFieldIsAdded) {
  YAML::Node doc = YAML::Load(kDoc);
  const auto paths = expand_path(doc, *parse_path("spec.policy.queue"));
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_FALSE(value_at_path(doc, paths[0]).IsDefined());
  set_at_path(doc, paths[0], YAML::Load("Priority"));
  EXPECT_EQ(doc["spec"]["policy"]["queue"].as<std::string>(), "Priority");
  EXPECT_EQ(doc["spec"]["policy"]["placement"].as<std::string>(), "binpack");
}

TEST(DocumentPath, AbsentFieldsOnTheWayAreAddedAsMaps) {
  YAML::Node doc = YAML::Load(kDoc);
  const auto paths = expand_path(doc, *parse_path("spec.sim.podStartup"));
  ASSERT_EQ(paths.size(), 1u);
  set_at_path(doc, paths[0], YAML::Load("0s"));
  EXPECT_EQ(doc["spec"]["sim"]["podStartup"].as<std::string>(), "0s");
  // Keys are tagged as the parser tags plain keys, so the strict reader takes them.
  for (const auto& entry : doc["spec"]["sim"]) EXPECT_EQ(entry.first.Tag(), "?");
}

TEST(DocumentPath, SaysWhatIsMissingOnTheWay) {
  EXPECT_EQ(expand_error("spec.polcy[0].placement"),
            "spec.polcy[0].placement: there is no field 'polcy' in spec (its fields: policy, "
            "racks, empty)");
  EXPECT_EQ(expand_error("spec.racks[3].nodes"), "spec.racks[3].nodes: spec.racks has 3 items");
  EXPECT_EQ(expand_error("spec.empty[*].nodes"),
            "spec.empty[*].nodes: spec.empty is an empty list");
  EXPECT_EQ(expand_error("spec.policy[0]"), "spec.policy[0]: spec.policy is a map, not a list");
  EXPECT_EQ(expand_error("spec.policy.placement.kind"),
            "spec.policy.placement.kind: there is no field 'kind' in spec.policy.placement: it "
            "is the value 'binpack'");
}

}  // namespace document_path_test
}  // namespace gantry
