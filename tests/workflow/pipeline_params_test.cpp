// spec.params, metadata.tags and metadata.owner of a Pipeline (issue #26 §3 and §6): read with
// every error at its "file:line:col: path: message" (positions counted by hand from the text;
// columns are 1-based), and the values of a trigger checked against the params.

#include "workflow/pipeline/pipeline_params.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workflow/pipeline/pipeline_loader.hpp"

namespace gantry {
namespace pipeline_params_test {

using ::testing::ElementsAre;

constexpr const char* kGood = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata:
  name: train
  description: Fine-tunes the ranking model
  owner: ml-platform
  tags: [nlp, nightly]
spec:
  params:
    epochs: {type: int, default: 3, description: passes over the data}
    lr: {type: float, default: 0.001}
    dataset: {type: string, default: "s3://bucket/day"}
    dry_run: {type: bool}
  tasks:
  - {name: fit, image: x}
)";

std::vector<std::string> errors_of(const std::string& text, PipelineDocuments& out) {
  std::vector<std::string> lines;
  for (const InputError& e : validate_pipeline_sources({{"t.yaml", text}}, out))
    lines.push_back(e.what());
  return lines;
}

TEST(PipelineParams, ParamsTagsAndOwnerAreRead) {
  PipelineDocuments docs;
  ASSERT_TRUE(errors_of(kGood, docs).empty());
  const PipelineSpec& p = docs.pipelines.at(0);
  EXPECT_EQ(p.description, "Fine-tunes the ranking model");
  EXPECT_EQ(p.owner, "ml-platform");
  EXPECT_EQ(p.tags, (std::vector<std::string>{"nlp", "nightly"}));
  ASSERT_EQ(p.params.size(), 4u);
  EXPECT_EQ(p.params[0].name, "epochs");
  EXPECT_EQ(p.params[0].type, ParamType::kInt);
  EXPECT_EQ(p.params[0].default_value, "3");
  EXPECT_EQ(p.params[0].description, "passes over the data");
  EXPECT_EQ(p.params[0].where.line, 10);
  EXPECT_EQ(p.params[1].default_value, "0.001");
  EXPECT_EQ(p.params[2].default_value, "\"s3://bucket/day\"");
  EXPECT_EQ(p.params[3].type, ParamType::kBool);
  EXPECT_EQ(p.params[3].default_value, std::nullopt);
}

// A default of the wrong type, an unknown type, a name tasks could not see as env, two names
// that are one env, a scheduled pipeline's param without default, a tag that is not a name.
TEST(PipelineParams, EveryBadParamIsNamedAtItsLine) {
  const std::string text = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: train, tags: [ok, [nested]]}
spec:
  schedule: {cron: "@daily", start: "2026-01-01T00:00:00Z"}
  params:
    epochs: {type: int, default: ten}
    lr: {type: decimal, default: 1}
    bad-name: {type: string}
    Mode: {type: string, default: a}
    mode: {type: string, default: b}
    flag: {type: bool}
  tasks:
  - {name: fit, image: x}
)";
  PipelineDocuments docs;
  EXPECT_THAT(
      errors_of(text, docs),
      ElementsAre(
          "t.yaml:3:36: metadata.tags[1]: expected a name, got a list",
          "t.yaml:7:34: spec.params.epochs.default: expected an integer, got 'ten'",
          "t.yaml:8:16: spec.params.lr.type: unknown value 'decimal'; expected one of: string, "
          "int, float, bool",
          "t.yaml:9:5: spec.params.bad-name: expected a param name of letters, digits and '_', "
          "not starting with a digit (tasks see it as env GANTRY_PARAM_<NAME>), got 'bad-name'",
          "t.yaml:11:5: spec.params.mode: param mode and param Mode are the same env "
          "GANTRY_PARAM_MODE",
          "t.yaml:12:11: spec.params.flag.default: missing required field 'default': the pipeline "
          "has "
          "a schedule, and scheduled runs take the defaults"));
}

TEST(PipelineParams, ATriggersValuesAreCheckedAndDefaultsFillTheRest) {
  PipelineDocuments docs;
  ASSERT_TRUE(errors_of(kGood, docs).empty());
  const PipelineSpec& p = docs.pipelines.at(0);
  using M = std::map<std::string, std::string>;
  EXPECT_EQ(resolve_params(p, {{"epochs", 10}, {"dry_run", true}}),
            (M{{"dataset", "\"s3://bucket/day\""},
               {"dry_run", "true"},
               {"epochs", "10"},
               {"lr", "0.001"}}));
  // An int where a float is asked for is a float.
  EXPECT_EQ(resolve_params(p, {{"lr", 1}, {"dry_run", false}}).at("lr"), "1.0");
  const auto refused = [&](const nlohmann::json& given) {
    try {
      resolve_params(p, given);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refused({{"epochs", "ten"}, {"dry_run", true}}),
            "params.epochs: expected an int, got \"ten\"");
  EXPECT_EQ(refused({{"epochs", 1.5}, {"dry_run", true}}),
            "params.epochs: expected an int, got 1.5");
  EXPECT_EQ(refused({{"dry_run", "yes"}}), "params.dry_run: expected a bool, got \"yes\"");
  EXPECT_EQ(refused({{"epoch", 1}}),
            "params.epoch: not a param of pipeline train (it has: epochs, lr, dataset, dry_run)");
  EXPECT_EQ(refused(nlohmann::json::object()), "params.dry_run: required (it has no default)");
  EXPECT_EQ(refused(nlohmann::json::array()), "params: expected an object of name: value, got []");
}

}  // namespace pipeline_params_test
}  // namespace gantry
