// GET .../tasks/{task}/attempts/{n}/log in the simulated world (attempt_log.hpp): the story of
// an attempt as text, one "TIME what" line per moment. A container task of a run with params,
// marked failed by "ops": asked for its resources, its params as env, started as a container
// of the simulated world, ended killed with the reason. Unknown attempts are 404, a bad
// number 400; a viewer may read it.

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/web/pipeline_api_fixture.hpp"

namespace gantry::web {
namespace attempt_log_api_test {

constexpr const char* kOne = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: one}
spec:
  params:
    epochs: {type: int, default: 3}
    dataset: {type: string, default: "s3://d"}
  tasks:
  - {name: fit, image: i, resources: {cpu: "2", memory: 4Gi}, simulate: {duration: 10h}}
)";

// The lines of a story without their times (the first word), which the wall clock sets.
std::vector<std::string> without_times(const std::string& text) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    const std::string line = text.substr(at, nl - at);
    const bool timed = line.size() > 20 && line[4] == '-' && line[10] == 'T';
    out.push_back(timed ? line.substr(line.find(' ') + 1) : line);
    at = nl == std::string::npos ? text.size() : nl + 1;
  }
  return out;
}

class AttemptLogApi : public testing::PipelineApiTest {};

TEST_F(AttemptLogApi, TheStoryOfAContainerAttemptMarkedFailed) {
  apply(kOne);
  const std::string lt = trigger("one", R"({"params": {"epochs": 10}})");
  const std::string task = "/api/v1/pipelines/one/runs/" + lt + "/tasks/fit";
  json_of(call("POST", task + "/mark-failed"), 200);
  const HttpResponse r = call("GET", task + "/attempts/1/log", "", "", &viewer_);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(
      without_times(r.body),
      (std::vector<std::string>{
          "attempt 1 of task fit (run one " + lt + ") asked for cpu 2000m, memory 4Gi (one pod)",
          "env GANTRY_PARAM_DATASET=s3://d", "env GANTRY_PARAM_EPOCHS=10",
          "started (a container of the simulated world: no placement on the cluster's "
          "nodes)",
          "ended killed: marked failed by ops"}));

  const HttpResponse none = call("GET", task + "/attempts/2/log");
  EXPECT_EQ(none.status, 404);
  EXPECT_NE(none.body.find("task fit of run one " + lt + " has 1 attempt; there is no attempt 2"),
            std::string::npos)
      << none.body;
  EXPECT_EQ(call("GET", task + "/attempts/0/log").status, 400);
  EXPECT_EQ(call("GET", task + "/attempts/first/log").status, 400);
  EXPECT_EQ(call("GET", "/api/v1/pipelines/one/runs/" + lt + "/tasks/zz/attempts/1/log").status,
            404);
}

// A gang of the simulated cluster (pytorchjob, 2 pods of 1 GPU A100-80G, 10 minutes of compute)
// on an engine whose loop this test runs itself, to an hour after the trigger (at --speed
// 36000, a tenth of a second): its story says it queued as a gang, where its two pods were
// placed and on which GPU, that it ran and finished, and that the attempt succeeded. Which
// nodes the scenario's scheduler chose is its business: the lines are matched by their words.
class AttemptLogGang : public testing::TempDirTest {};

TEST_F(AttemptLogGang, TheStorySaysWhereThePodsWerePlaced) {
  EventBus bus;
  ServeEngine engine(
      ServeConfig{.db_path = (dir_ / "g.db").string(),
                  .cluster_file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                  .speed = 36000,
                  .kube = {},
                  .log = {}},
      bus);
  engine.start();
  bool created = false;
  engine.apply(R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: gang}
spec:
  tasks:
  - name: fit
    template: pytorchjob
    image: i
    replicas: {master: 1, worker: 1}
    resources: {cpu: "4", memory: 16Gi, gpu: "1", gpuType: A100-80G}
    simulate: {duration: 10m}
)",
               false, created, ServeEngine::NewPipelines::kStart);
  Time logical;
  ASSERT_TRUE(parse_rfc3339(engine.trigger("gang")["logicalTime"], logical));
  engine.run_until(logical + hours(1));
  const std::vector<std::string> story =
      without_times(engine.attempt_log("gang", logical, "fit", 1).text);
  const auto has = [&](const std::string& start) {
    return std::any_of(story.begin(), story.end(),
                       [&](const std::string& l) { return l.rfind(start, 0) == 0; });
  };
  std::string all;
  for (const std::string& l : story) all += l + "\n";
  EXPECT_EQ(story.front(), "attempt 1 of task fit (run gang " + format_rfc3339(logical) +
                               ") asked for cpu 4000m, memory 16Gi, 1 GPU A100-80G per pod, 2 "
                               "pods (master: 1, worker: 1)");
  EXPECT_TRUE(has("queued for the cluster as gang gang/fit@")) << all;
  EXPECT_TRUE(has("placed: pod 0 on ")) << all;
  EXPECT_NE(all.find("; pod 1 on "), std::string::npos) << all;
  EXPECT_NE(all.find(" GPUs "), std::string::npos) << all;
  EXPECT_TRUE(has("running: every pod runs")) << all;
  EXPECT_TRUE(has("the gang finished")) << all;
  EXPECT_EQ(story.back(), "ended succeeded") << all;
}

}  // namespace attempt_log_api_test
}  // namespace gantry::web
