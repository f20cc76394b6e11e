// The task actions over the API (web/API.md, "Task actions"): clear, mark-success and
// mark-failed of one task, each with ?dryRun=true first as a confirmation dialog would ask, on
// a server at real speed whose 10-hour tasks run throughout the test. Bad bodies are 400, an
// unknown task 404, what cannot apply 409, a viewer's token 403.

#include <gtest/gtest.h>

#include "tests/web/pipeline_api_fixture.hpp"

namespace gantry::web {
namespace task_actions_api_test {

constexpr const char* kSlow = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: slow}
spec:
  tasks:
  - {name: a, image: i, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 10h}}
  - {name: b, image: i, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 10h},
     dependsOn: [a]}
  - {name: c, image: i, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 10h}}
)";

class TaskActionsApi : public testing::PipelineApiTest {};

nlohmann::json change(const std::string& task, const std::string& from, const std::string& to,
                      nlohmann::json stops = nullptr) {
  return {{"task", task}, {"from", from}, {"to", to}, {"stopsAttempt", stops}};
}

// Triggered: a and c running, b pending. mark-failed a (dry run, then for real): a's attempt 1
// stopped, b upstream_failed at once. mark-success c: the run ends failed (leaf b did not
// succeed). clear a with its downstream: the run goes back and a starts again at once (its
// attempt 2), b pending.
TEST_F(TaskActionsApi, MarkFailedMarkSuccessThenClearWithDownstream) {
  apply(kSlow);
  const std::string lt = trigger("slow");
  const std::string run = "/api/v1/pipelines/slow/runs/" + lt;

  nlohmann::json j = json_of(call("POST", run + "/tasks/a/mark-failed?dryRun=true"), 200);
  EXPECT_EQ(j["action"], "mark-failed");
  EXPECT_EQ(j["dryRun"], true);
  EXPECT_EQ(j["runState"], nlohmann::json({{"from", "running"}, {"to", "running"}}));
  EXPECT_EQ(j["changes"], nlohmann::json::array({change("a", "running", "failed", 1)}));
  EXPECT_EQ(j["run"]["tasks"][0]["state"], "running") << "a dry run changes nothing";

  j = json_of(call("POST", run + "/tasks/a/mark-failed"), 200);
  EXPECT_EQ(j["dryRun"], false);
  EXPECT_EQ(j["changes"], nlohmann::json::array({change("a", "running", "failed", 1),
                                                 change("b", "pending", "upstream_failed")}));
  EXPECT_EQ(j["run"]["tasks"][0]["attempts"][0]["reason"], "marked failed by ops");

  j = json_of(call("POST", run + "/tasks/c/mark-success"), 200);
  EXPECT_EQ(j["runState"], nlohmann::json({{"from", "running"}, {"to", "failed"}}));
  EXPECT_EQ(j["changes"], nlohmann::json::array({change("c", "running", "succeeded", 1)}));

  const std::string downstream = R"({"downstream": true})";
  j = json_of(call("POST", run + "/tasks/a/clear?dryRun=true", downstream), 200);
  EXPECT_EQ(j["runState"], nlohmann::json({{"from", "failed"}, {"to", "queued"}}));
  EXPECT_EQ(j["changes"], nlohmann::json::array({change("a", "failed", "pending"),
                                                 change("b", "upstream_failed", "pending")}));
  j = json_of(call("POST", run + "/tasks/a/clear", downstream), 200);
  EXPECT_EQ(j["runState"], nlohmann::json({{"from", "failed"}, {"to", "running"}}));
  EXPECT_EQ(j["changes"], nlohmann::json::array({change("a", "failed", "running"),
                                                 change("b", "upstream_failed", "pending")}));
  EXPECT_EQ(j["run"]["tasks"][0]["attempts"].size(), 2u);
}

TEST_F(TaskActionsApi, RefusalsSayWhy) {
  apply(kSlow);
  const std::string lt = trigger("slow");
  const std::string run = "/api/v1/pipelines/slow/runs/" + lt;
  // Bad bodies: a field of the wrong type, an unknown field, a body where none is taken.
  nlohmann::json j = json_of(call("POST", run + "/tasks/a/clear", R"({"downstream": "yes"})"), 400);
  EXPECT_EQ(j["error"]["message"], "downstream: expected true or false, got \"yes\"");
  j = json_of(call("POST", run + "/tasks/a/clear", R"({"downstrem": true})"), 400);
  EXPECT_EQ(j["error"]["message"],
            "downstrem: unknown field (clear takes downstream, upstream, failedOnly)");
  json_of(call("POST", run + "/tasks/a/mark-success", R"({"upstream": true})"), 400);
  json_of(call("POST", run + "/tasks/a/clear", "[1]"), 400);
  json_of(call("POST", "/api/v1/pipelines/slow/runs/yesterday/tasks/a/clear"), 400);
  // Unknown task, run, pipeline.
  j = json_of(call("POST", run + "/tasks/zz/clear"), 404);
  EXPECT_EQ(j["error"]["message"], "pipeline 'slow' has no task 'zz'");
  json_of(call("POST", "/api/v1/pipelines/slow/runs/2020-01-01T00:00:00Z/tasks/a/clear"), 404);
  json_of(call("POST", "/api/v1/pipelines/nope/runs/" + lt + "/tasks/a/clear"), 404);
  // Nothing to clear: b is pending.
  j = json_of(call("POST", run + "/tasks/b/clear?dryRun=true"), 409);
  EXPECT_EQ(j["error"]["message"], "nothing to clear: every task of the selection is pending");
  // A viewer may not, not even a dry run.
  json_of(call("POST", run + "/tasks/a/clear?dryRun=true", "", "application/json", &viewer_), 403);
  json_of(call("POST", run + "/tasks/a/mark-success", "", "application/json", &viewer_), 403);
  // The run ended (killed): marking failed refuses and says how to run the task again (marking
  // succeeded would let the downstream it stopped run: RunnerTaskActions.*).
  json_of(call("POST", run + "/kill"), 200);
  j = json_of(call("POST", run + "/tasks/a/mark-failed"), 409);
  EXPECT_EQ(j["error"]["message"],
            "the run has ended: it is killed; clear the task to run it again");
}

}  // namespace task_actions_api_test
}  // namespace gantry::web
