// ServeEngine across a restart, in process: an engine applies documents and starts runs, is
// destroyed (what a stop leaves in the database), and a second engine on the same database
// starts from it. Issue 22: a Pipeline naming a Pool stored as its own document was skipped at
// start, silently, and its runs stayed `running` for ever.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "engine/store/database.hpp"
#include "engine/store/statement.hpp"
#include "tests/web/temp_dir.hpp"
#include "web/server/api_server.hpp"
#include "web/server/event_bus.hpp"
#include "web/server/serve_engine.hpp"

namespace gantry::web {
namespace {

// What web/ui/e2e/pipelines holds, shortened: one file declares the Pool `warehouse` beside a
// pipeline using it, another file's pipeline names it too. Tasks take an hour of simulated
// time, so a run triggered now is in flight when the engine stops.
constexpr const char* kPoolAndEtl = R"(apiVersion: gantry.dev/v1
kind: Pool
metadata: {name: warehouse}
spec: {slots: 4, maxWait: 20m}
---
apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: feature-etl}
spec:
  tasks:
  - {name: extract, image: x, resources: {cpu: "1", memory: 1Gi}, pool: warehouse,
     simulate: {duration: 1h}}
)";
constexpr const char* kRecsys = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: recsys-retrain}
spec:
  tasks:
  - {name: featurize, image: x, resources: {cpu: "1", memory: 1Gi}, pool: warehouse,
     simulate: {duration: 1h}}
)";
constexpr const char* kPlain = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: plain}
spec:
  tasks:
  - {name: only, image: x, resources: {cpu: "1", memory: 1Gi}, simulate: {duration: 1h}}
)";

class ServeEngineRestart : public testing::TempDirTest {
 protected:
  std::unique_ptr<ServeEngine> engine(EventBus& bus) {
    return std::make_unique<ServeEngine>(
        ServeConfig{.db_path = db(),
                    .cluster_file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                    .kube = {},
                    .log = [this](const std::string& line) { logged_.push_back(line); }},
        bus);
  }
  std::vector<std::string> logged_;  // what the engines wrote to their log (standard error)
  std::string db() const { return (dir_ / "g.db").string(); }
  static std::vector<std::string> names(const nlohmann::json& list, const char* key) {
    std::vector<std::string> out;
    for (const auto& item : list[key]) out.push_back(item["name"]);
    return out;
  }
  int64_t count(const std::string& sql) {
    Database d = Database::open(db(), {.create = false, .read_only = true});
    Statement s = d.prepare(sql);
    return s.step() ? s.column_int64(0) : -1;
  }
  static void apply(ServeEngine& e, const std::string& yaml) {
    bool created = false;
    e.apply(yaml, false, created);
  }
};

// Two pipelines naming the pool, one run of each in flight at the stop: after the restart both
// pipelines and the pool are there, nothing is reported as a problem, and each run's attempt
// was settled by the restart rules (lost, and run again: 2 attempts per run, the first lost).
TEST_F(ServeEngineRestart, APipelineNamingAPoolStoredApartIsLoadedAgain) {
  {
    EventBus bus;
    auto first = engine(bus);
    first->start();
    apply(*first, kPoolAndEtl);
    apply(*first, kRecsys);
    apply(*first, kPlain);
    ASSERT_EQ(names(first->list_pipelines(), "pipelines"),
              (std::vector<std::string>{"feature-etl", "plain", "recsys-retrain"}));
    first->trigger("feature-etl");
    first->trigger("recsys-retrain");
    ASSERT_EQ(count("SELECT count(*) FROM attempts WHERE end_us IS NULL"), 2) << "precondition";
  }
  EventBus bus;
  auto second = engine(bus);
  second->start();
  EXPECT_EQ(names(second->list_pipelines(), "pipelines"),
            (std::vector<std::string>{"feature-etl", "plain", "recsys-retrain"}));
  EXPECT_EQ(names(second->pools(), "pools"), std::vector<std::string>{"warehouse"});
  EXPECT_TRUE(second->problems().empty());
  EXPECT_TRUE(logged_.empty());
  // 2 runs x (1 lost + 1 new) = 4 attempts; the 2 new ones run in this life.
  EXPECT_EQ(count("SELECT count(*) FROM attempts"), 4);
  EXPECT_EQ(count("SELECT count(*) FROM attempts WHERE state = 'lost'"), 2);
  EXPECT_EQ(count("SELECT count(*) FROM runs WHERE state = 'running'"), 2);
  // Applying the same folder again finds the documents unchanged and loaded.
  bool created = true;
  second->apply(kRecsys, false, created);
  EXPECT_FALSE(created);
}

// A stored document this Gantry cannot load (here: edited in the database to name a task that
// does not exist) is a problem naming it, with file:line:col, and an "error" event; its run in
// flight ends (failed, its attempt closed as error, event pipeline-not-loaded) instead of
// staying running for ever. Applying a good version clears the problem.
TEST_F(ServeEngineRestart, AStoredDocumentThatCannotBeLoadedIsALoudErrorAndItsRunsEnd) {
  {
    EventBus bus;
    auto first = engine(bus);
    first->start();
    apply(*first, kPoolAndEtl);
    apply(*first, kPlain);
    first->trigger("plain");
  }
  {
    Database d = Database::open(db(), {.create = false});
    d.exec(
        "UPDATE server_documents SET yaml = replace(yaml, 'simulate:', 'dependsOn: [nope], "
        "simulate:') WHERE name = 'plain'");
  }
  EventBus bus;
  auto second = engine(bus);
  second->start();
  EXPECT_EQ(names(second->list_pipelines(), "pipelines"), std::vector<std::string>{"feature-etl"});
  const std::vector<std::string> problems = second->problems();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("Pipeline/plain"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find(":6:"), std::string::npos) << "line 6, the task: " << problems[0];
  EXPECT_NE(problems[0].find("nope"), std::string::npos) << problems[0];
  ASSERT_EQ(logged_.size(), 1u);
  EXPECT_EQ(logged_[0], "error: " + problems[0]);
  const EventBus::Batch events = bus.wait_after(0, std::chrono::milliseconds(0));
  const auto error = std::find_if(events.events.begin(), events.events.end(),
                                  [](const BusEvent& e) { return e.type == "error"; });
  ASSERT_NE(error, events.events.end());
  EXPECT_EQ(nlohmann::json::parse(error->data)["document"], "Pipeline/plain") << error->data;
  // The run in flight of the pipeline that is not loaded: ended.
  EXPECT_EQ(count("SELECT count(*) FROM runs WHERE pipeline = 'plain' AND state = 'failed' AND "
                  "end_us IS NOT NULL"),
            1);
  EXPECT_EQ(count("SELECT count(*) FROM attempts WHERE state = 'error' AND end_us IS NOT NULL"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM task_instances WHERE state = 'killed'"), 1);
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE kind = 'pipeline-not-loaded'"), 1);
  // The user applies it again as it should be: loaded, the problem is gone.
  apply(*second, kPlain);
  EXPECT_EQ(names(second->list_pipelines(), "pipelines"),
            (std::vector<std::string>{"feature-etl", "plain"}));
  EXPECT_TRUE(second->problems().empty());
}

// Deleting a document that could not be loaded removes it from the database and the problems.
TEST_F(ServeEngineRestart, AStoredDocumentThatCannotBeLoadedCanBeDeleted) {
  {
    EventBus bus;
    auto first = engine(bus);
    first->start();
    apply(*first, kPlain);
  }
  {
    Database d = Database::open(db(), {.create = false});
    d.exec("UPDATE server_documents SET yaml = 'kind: [' WHERE name = 'plain'");
  }
  EventBus bus;
  auto second = engine(bus);
  second->start();
  ASSERT_EQ(second->problems().size(), 1u);
  second->delete_pipeline("plain");
  EXPECT_TRUE(second->problems().empty());
  EXPECT_EQ(count("SELECT count(*) FROM server_documents"), 0);
  EXPECT_THROW(second->delete_pipeline("plain"), ApiError);
}

// Deleting with ?purge=true deletes the pipeline's stored runs (with their tasks, attempts
// and events); without it they stay readable. Through a restart: pipeline `plain` purged
// (1 run, 1 task, 1 attempt gone), pipeline `kept` deleted without purge (its 1 run still
// there and readable). `plain` applied again starts with no history.
TEST_F(ServeEngineRestart, PurgedRunsDoNotComeBackAndKeptOnesDo) {
  std::string kept = kPlain;
  kept.replace(kept.find("name: plain"), 11, "name: kept");
  Time plain_run, kept_run;
  {
    EventBus bus;
    auto first = engine(bus);
    first->start();
    apply(*first, kPlain);
    apply(*first, kept);
    ASSERT_TRUE(parse_rfc3339(first->trigger("plain")["logicalTime"], plain_run));
    ASSERT_TRUE(parse_rfc3339(first->trigger("kept")["logicalTime"], kept_run));
    // A run in flight refuses the delete; marked succeeded it is over.
    EXPECT_THROW(first->delete_pipeline("plain", true), ApiError);
    first->run_action("plain", plain_run, ActionKind::kMarkSuccess);
    first->run_action("kept", kept_run, ActionKind::kMarkSuccess);
    EXPECT_EQ(first->delete_pipeline("plain", true),
              nlohmann::json(
                  {{"deleted", "plain"}, {"purged", true}, {"runsKept", 0}, {"runsPurged", 1}}));
    EXPECT_EQ(first->delete_pipeline("kept"),
              nlohmann::json(
                  {{"deleted", "kept"}, {"purged", false}, {"runsKept", 1}, {"runsPurged", 0}}));
    // Applied again in the same life, `plain` has no run in memory either.
    apply(*first, kPlain);
    EXPECT_THROW(first->run_action("plain", plain_run, ActionKind::kMarkSuccess), ApiError);
    first->delete_pipeline("plain", true);
  }
  EXPECT_EQ(count("SELECT count(*) FROM runs WHERE pipeline = 'plain'"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM attempts WHERE run_id NOT IN (SELECT id FROM runs)"), 0);
  EXPECT_EQ(count("SELECT count(*) FROM task_instances WHERE run_id NOT IN (SELECT id FROM runs)"),
            0);
  EXPECT_EQ(count("SELECT count(*) FROM events WHERE pipeline = 'plain'"), 0);
  EventBus bus;
  auto second = engine(bus);
  second->start();
  EXPECT_TRUE(second->list_pipelines()["pipelines"].empty());
  EXPECT_TRUE(second->queries().run("plain", plain_run).is_null());
  EXPECT_EQ(second->queries().run("kept", kept_run)["state"], "succeeded");
  apply(*second, kPlain);
  EXPECT_TRUE(second->pipeline("plain")["lastRun"].is_null());
  EXPECT_EQ(count("SELECT count(*) FROM runs"), 1) << "kept's run only";
}

// --pipelines DIR applies its files as one: a pipeline file that sorts before the file
// declaring its pool is applied (each file alone, in name order, refused it).
TEST_F(ServeEngineRestart, AFolderIsAppliedAsOneWhateverTheOrderOfItsFiles) {
  EventBus bus;
  auto e = engine(bus);
  e->start();
  bool created = false;
  e->apply_files({{"dir/a-recsys.yaml", kRecsys}, {"dir/b-etl.yaml", kPoolAndEtl}}, false, created);
  EXPECT_TRUE(created);
  EXPECT_EQ(names(e->list_pipelines(), "pipelines"),
            (std::vector<std::string>{"feature-etl", "recsys-retrain"}));
  // An error names its file.
  try {
    e->apply_files({{"dir/a.yaml", kPlain}, {"dir/b.yaml", "kind: ["}}, false, created);
    FAIL() << "a broken file is refused";
  } catch (const ApiError& err) {
    EXPECT_EQ(err.status(), 400);
    EXPECT_EQ(err.body()["errors"][0]["file"], "dir/b.yaml") << err.body();
  }
  EXPECT_EQ(names(e->list_pipelines(), "pipelines").size(), 2u) << "all or nothing";
}

}  // namespace
}  // namespace gantry::web
