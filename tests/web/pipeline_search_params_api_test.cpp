// Trigger with parameters and the pipeline list's search (issue #26 §3 and §6) over the API:
// values checked against spec.params (400 naming the param), defaults filling the rest, kept
// with the run through a restart; the params schema in GET /pipelines/{name}; tags, owner and
// description in the list, filtered by q, tag, owner and state.

#include <gtest/gtest.h>

#include "tests/web/pipeline_api_fixture.hpp"

namespace gantry::web {
namespace pipeline_search_params_api_test {

constexpr const char* kTrain = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata:
  name: bert-train
  description: Fine-tunes BERT for Search
  owner: ml-platform
  tags: [nlp, gpu]
spec:
  params:
    epochs: {type: int, default: 3, description: passes over the data}
    lr: {type: float, default: 0.001}
    dataset: {type: string}
    dry_run: {type: bool, default: false}
  tasks:
  - {name: fit, image: x, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 10h}}
)";
constexpr const char* kEtl = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: feature-etl, owner: data, tags: [etl]}
spec:
  tasks:
  - {name: extract, image: x, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 10h}}
)";

class PipelineSearchParamsApi : public testing::PipelineApiTest {
 protected:
  std::vector<std::string> listed(const std::string& query) {
    std::vector<std::string> out;
    const nlohmann::json list = json_of(call("GET", "/api/v1/pipelines" + query), 200);
    for (const auto& p : list["pipelines"]) out.push_back(p["name"]);
    return out;
  }
};

TEST_F(PipelineSearchParamsApi, TriggerWithParamsKeepsThemWithTheRunThroughARestart) {
  apply(kTrain);
  const nlohmann::json p = json_of(call("GET", "/api/v1/pipelines/bert-train"), 200);
  EXPECT_EQ(p["params"], nlohmann::json::parse(R"([
    {"name": "epochs", "type": "int", "default": 3, "description": "passes over the data"},
    {"name": "lr", "type": "float", "default": 0.001, "description": ""},
    {"name": "dataset", "type": "string", "default": null, "description": ""},
    {"name": "dry_run", "type": "bool", "default": false, "description": ""}])"));

  // Bad values: each refused naming the param; nothing is created.
  const std::string trigger_path = "/api/v1/pipelines/bert-train/trigger";
  nlohmann::json j =
      json_of(call("POST", trigger_path, R"({"params": {"epochs": "ten", "dataset": "d"}})"), 400);
  EXPECT_EQ(j["error"]["message"], "params.epochs: expected an int, got \"ten\"");
  j = json_of(call("POST", trigger_path, R"({"params": {}})"), 400);
  EXPECT_EQ(j["error"]["message"], "params.dataset: required (it has no default)");
  j = json_of(call("POST", trigger_path, R"({"params": {"dataset": "d", "seed": 1}})"), 400);
  EXPECT_EQ(j["error"]["message"],
            "params.seed: not a param of pipeline bert-train (it has: epochs, lr, dataset, "
            "dry_run)");
  json_of(call("POST", trigger_path, R"({"parms": {}})"), 400);
  json_of(
      call("POST", trigger_path, R"({"params": {"dataset": "d"}})", "application/json", &viewer_),
      403);
  EXPECT_TRUE(json_of(call("GET", "/api/v1/pipelines/bert-train/runs"), 200)["runs"].empty());

  const std::string lt =
      trigger("bert-train", R"({"params": {"epochs": 10, "dataset": "s3://d"}})");
  const nlohmann::json params = {
      {"dataset", "s3://d"}, {"dry_run", false}, {"epochs", 10}, {"lr", 0.001}};
  const std::string run = "/api/v1/pipelines/bert-train/runs/" + lt;
  EXPECT_EQ(json_of(call("GET", run), 200)["params"], params);
  stop_server();
  start_server();
  EXPECT_EQ(json_of(call("GET", run), 200)["params"], params) << "kept through a restart";
}

TEST_F(PipelineSearchParamsApi, TheListShowsAndFiltersByTextTagOwnerAndState) {
  apply(kTrain);
  apply(kEtl);
  const nlohmann::json all = json_of(call("GET", "/api/v1/pipelines"), 200);
  ASSERT_EQ(all["pipelines"].size(), 2u);
  const nlohmann::json& bert = all["pipelines"][0];
  EXPECT_EQ(bert["description"], "Fine-tunes BERT for Search");
  EXPECT_EQ(bert["owner"], "ml-platform");
  EXPECT_EQ(bert["tags"], nlohmann::json::array({"nlp", "gpu"}));
  using V = std::vector<std::string>;
  EXPECT_EQ(listed("?q=BERT"), V{"bert-train"}) << "name, case-insensitive";
  EXPECT_EQ(listed("?q=search"), V{"bert-train"}) << "description";
  EXPECT_EQ(listed("?q=e"), (V{"bert-train", "feature-etl"}));
  EXPECT_EQ(listed("?tag=etl"), V{"feature-etl"});
  EXPECT_EQ(listed("?tag=nl"), V{}) << "a tag matches whole";
  EXPECT_EQ(listed("?owner=ml-platform&tag=gpu"), V{"bert-train"});
  EXPECT_EQ(listed("?owner=data&tag=gpu"), V{});
  // Both were applied with ?paused=false: active. feature-etl's one task marked failed: its
  // latest run failed, so it is failing. Paused after that, it is paused and no longer active.
  EXPECT_EQ(listed("?state=active"), (V{"bert-train", "feature-etl"}));
  EXPECT_EQ(listed("?state=paused"), V{});
  const std::string lt = trigger("feature-etl");
  json_of(call("POST", "/api/v1/pipelines/feature-etl/runs/" + lt + "/tasks/extract/mark-failed"),
          200);
  EXPECT_EQ(listed("?state=failing"), V{"feature-etl"});
  json_of(call("POST", "/api/v1/pipelines/feature-etl/pause"), 200);
  EXPECT_EQ(listed("?state=paused"), V{"feature-etl"});
  EXPECT_EQ(listed("?state=active"), V{"bert-train"});
  const nlohmann::json bad = json_of(call("GET", "/api/v1/pipelines?state=broken"), 400);
  EXPECT_EQ(bad["error"]["message"], "?state: expected paused, active or failing, got 'broken'");
}

}  // namespace pipeline_search_params_api_test
}  // namespace gantry::web
