// Sweeps and plans through the REST API, on a real server on loopback (web/API.md, "Sweeps and
// plans"): the catalog lists the shipped files of the scenarios folder; a finished sweep's
// result, report and charts are exactly what `gantry sweep` computes and prints for the same
// file (sweep_json, sweep_text_report, sweep_charts, computed here in process), and a plan's
// likewise; a bad sweep is a 400 naming file, line and column; a base outside the folder is
// refused; DELETE cancels. No sleeps: the tests wait on the event bus for the job's final state.

#include <gtest/gtest.h>

#include <fstream>

#include "adapters/traces/trace_ref_loader.hpp"
#include "report/plan_report.hpp"
#include "report/sweep_report.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/plan/plan_run.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_summary.hpp"
#include "sim/sweep/sweep_variants.hpp"
#include "tests/sim/plan/plan_fixture.hpp"
#include "tests/web/temp_dir.hpp"
#include "web/client/http_client.hpp"
#include "web/server/api_routes.hpp"
#include "web/server/http_server.hpp"

namespace gantry::web {
namespace study_api_test {

namespace fs = std::filesystem;

// Two placements × 2 seeds of the quickstart: 4 runs.
const char* kSmallSweep = R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: small}
spec:
  base: ../quickstart.yaml
  seeds: 2
  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, spread]}
  metrics: [wait.p95, jct.mean]
)";

// tests/sim/plan's batch: eight 1-hour jobs on two priced pools (plan_fixture.hpp); the
// answer is cheap 2 + pricey 2 = 2 × $1 + 2 × $3 = $8/hour.
using gantry::testing::eight_jobs_base;

const char* kTwoPoolsPlan = R"(# Two pools by hand.
apiVersion: gantry.dev/v1
kind: Plan
metadata: {name: two-pools}
spec:
  base: eight.yaml
  pools:
  - {class: cheap, min: 0, max: 2, pricePerNodeHour: 1}
  - {class: pricey, min: 0, max: 16, pricePerNodeHour: 3}
  slo: {wait.max: 1h}
)";

class StudyApi : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    folder_ = fs::weakly_canonical(dir_ / "scenarios");
    fs::create_directories(folder_ / "sweeps");
    fs::create_directories(folder_ / "plans");
    fs::copy_file(fs::path(GANTRY_SOURCE_DIR) / "scenarios/quickstart.yaml",
                  folder_ / "quickstart.yaml");
    write("sweeps/small.yaml", kSmallSweep);
    write("plans/eight.yaml", eight_jobs_base());
    write("plans/two-pools.yaml", kTwoPoolsPlan);
    tokens_ = std::make_unique<TokenStore>((dir_ / "g.db").string());
    token_ = tokens_->create(TokenRole::kAdmin, "a");
    api_ = std::make_unique<ApiServer>(*tokens_, ApiOptions{.ui_root = dir_ / "ui"});
    studies_ = std::make_unique<StudyService>(bus_);
    add_sweep_routes(api_->router(), *studies_, folder_);
    server_ =
        std::make_unique<HttpServer>(HttpServerOptions{.listen = "127.0.0.1:0", .threads = 2},
                                     [this](HttpRequest& req) { return api_->dispatch(req); });
    client_ = std::make_unique<HttpClient>(server_->url(), ClientOptions{.token = token_});
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    studies_.reset();
    TempDirTest::TearDown();
  }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = folder_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  nlohmann::json get(const std::string& path) {
    const ClientResponse r = client_->get(path);
    EXPECT_EQ(r.status, 200) << path << ": " << r.body;
    return nlohmann::json::parse(r.body);
  }
  // Waits on the bus for job `id`'s final state; returns it. `on_event` sees every event of the
  // job before.
  std::string wait_final(const std::string& id,
                         const std::function<void(const nlohmann::json&)>& on_event = {}) {
    while (true) {
      const EventBus::Batch b = bus_.wait_after(seen_, std::chrono::minutes(5));
      if (b.closed || b.events.empty()) return "timeout";
      for (const BusEvent& e : b.events) {
        seen_ = e.id;
        const auto j = nlohmann::json::parse(e.data);
        if (j["id"] != id) continue;
        if (on_event) on_event(j);
        const std::string state = j["state"];
        if (state == "done" || state == "failed" || state == "cancelled") return state;
      }
    }
  }

  fs::path folder_;
  EventBus bus_;
  uint64_t seen_ = 0;
  std::unique_ptr<TokenStore> tokens_;
  std::string token_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<StudyService> studies_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<HttpClient> client_;
};

TEST_F(StudyApi, TheCatalogListsTheShippedFilesOfEachKind) {
  const nlohmann::json sweeps = get("/api/v1/sweeps/catalog")["sweeps"];
  ASSERT_EQ(sweeps.size(), 1u) << sweeps;
  EXPECT_EQ(sweeps[0]["name"], "small");
  EXPECT_EQ(sweeps[0]["file"], "sweeps/small.yaml");
  EXPECT_EQ(sweeps[0]["kind"], "Sweep");
  EXPECT_EQ(sweeps[0]["runs"], 4) << "2 points × 2 seeds";
  EXPECT_EQ(sweeps[0]["axes"], nlohmann::json::array({"placement"}));
  EXPECT_EQ(sweeps[0]["error"], nullptr);
  const nlohmann::json plans = get("/api/v1/plans/catalog")["plans"];
  ASSERT_EQ(plans.size(), 1u) << plans;
  EXPECT_EQ(plans[0]["name"], "two-pools");
  EXPECT_EQ(plans[0]["description"], "Two pools by hand.") << "the leading comment";
  EXPECT_EQ(plans[0]["pools"], nlohmann::json::array({"cheap", "pricey"}));
  // A sweep file that does not load is listed with its error (the page says why it cannot run).
  write("sweeps/broken.yaml",
        "apiVersion: gantry.dev/v1\nkind: Sweep\nmetadata: {name: broken}\nspec:\n  base: "
        "../quickstart.yaml\n  seeds: 0\n  axes:\n  - {name: p, path: spec.seed, values: [1]}\n");
  const nlohmann::json two = get("/api/v1/sweeps/catalog")["sweeps"];
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0]["name"], "broken");
  EXPECT_NE(two[0]["error"].get<std::string>().find("sweeps/broken.yaml:6:"), std::string::npos)
      << two[0]["error"];
  // No scenarios folder: nothing shipped, not an error.
  fs::remove_all(folder_);
  EXPECT_EQ(get("/api/v1/sweeps/catalog")["sweeps"], nlohmann::json::array());
  EXPECT_EQ(get("/api/v1/plans/catalog")["plans"], nlohmann::json::array());
}

TEST_F(StudyApi, ASweepShowsExactlyWhatTheCliComputes) {
  const ClientResponse posted = client_->post("/api/v1/sweeps", R"({"sweepName": "small"})");
  ASSERT_EQ(posted.status, 202) << posted.body;
  const std::string id = nlohmann::json::parse(posted.body)["id"];
  EXPECT_EQ(id, "sweep-1");
  size_t last_done = 0;
  ASSERT_EQ(wait_final(id,
                       [&](const nlohmann::json& j) {
                         EXPECT_GE(j["done"].get<size_t>(), last_done) << "never backwards";
                         last_done = j["done"];
                         EXPECT_EQ(j["total"], 4);
                       }),
            "done");
  const nlohmann::json j = get("/api/v1/sweeps/" + id);
  EXPECT_EQ(j["state"], "done");
  EXPECT_EQ(j["done"], 4);
  EXPECT_EQ(j["progress"], 1.0);

  // `gantry sweep`'s computation of the same file, in process.
  SweepSpec sweep = load_sweep_file((folder_ / "sweeps/small.yaml").string());
  const std::vector<ScenarioSpec> variants = build_sweep_variants(sweep, trace_loaders());
  std::vector<SweepRunResult> runs;
  run_sweep(sweep, variants,
            {.threads = 1, .finished = [&](const SweepRunResult& r) { runs.push_back(r); }});
  sweep.base = "quickstart.yaml";  // the API's paths are relative to the scenarios folder
  const SweepSummary summary = summarize_sweep(sweep, runs);
  EXPECT_EQ(j["result"], nlohmann::json::parse(sweep_json(sweep, summary).dump()));
  EXPECT_EQ(j["result"]["base"], "quickstart.yaml");
  EXPECT_EQ(j["report"].get<std::string>(), sweep_text_report(sweep, summary));
  const std::vector<NamedChart> charts = sweep_charts(sweep, summary);
  ASSERT_EQ(j["charts"].size(), charts.size());
  ASSERT_EQ(charts.size(), 2u) << "one per metric";
  for (size_t i = 0; i < charts.size(); ++i) {
    EXPECT_EQ(j["charts"][i]["name"], charts[i].file);
    EXPECT_EQ(j["charts"][i]["svg"], charts[i].svg);
  }
  const nlohmann::json list = get("/api/v1/sweeps")["sweeps"];
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0]["result"], nullptr) << "the list leaves results out";
  EXPECT_EQ(client_->get("/api/v1/plans/" + id).status, 404) << "a sweep is no plan";
  EXPECT_EQ(client_->del("/api/v1/sweeps/" + id).status, 200);
  EXPECT_EQ(client_->get("/api/v1/sweeps/" + id).status, 404) << "forgotten";
}

TEST_F(StudyApi, APlanShowsExactlyWhatTheCliComputes) {
  const ClientResponse posted = client_->post("/api/v1/plans", R"({"planName": "two-pools"})");
  ASSERT_EQ(posted.status, 202) << posted.body;
  const std::string id = nlohmann::json::parse(posted.body)["id"];
  EXPECT_EQ(id, "plan-1");
  ASSERT_EQ(wait_final(id), "done");
  const nlohmann::json j = get("/api/v1/plans/" + id);
  EXPECT_EQ(j["done"], 1) << "one forecast step";

  PlanSpec plan = load_plan_file((folder_ / "plans/two-pools.yaml").string());
  const PlanVariants variants(plan, trace_loaders());
  const PlanRun run = run_plan(plan, variants, 1);
  plan.base = "plans/eight.yaml";
  const std::vector<std::string>& metrics = run.evaluators.front()->metrics();
  EXPECT_EQ(j["result"],
            nlohmann::json::parse(plan_json(plan, variants.slos(), metrics, run.result).dump()));
  const std::string report = plan_text_report(plan, variants.slos(), metrics, run.result);
  EXPECT_EQ(j["report"].get<std::string>(), report);
  EXPECT_NE(report.find("cheap 2, pricey 2 — $8.00/hour"), std::string::npos) << report;
  ASSERT_EQ(j["charts"].size(), 1u);
  EXPECT_EQ(j["charts"][0]["name"], "frontier.svg");
  EXPECT_EQ(j["charts"][0]["svg"], plan_frontier_svg(plan, variants.slos(), metrics, run.result));
}

TEST_F(StudyApi, BadInputIsA400NamingFileLineAndColumn) {
  // Line 10, column 23: the second value of the placement axis.
  write("sweeps/typo.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: typo}
spec:
  base: ../quickstart.yaml
  seeds: 1
  axes:
  - name: placement
    path: spec.policy.placement
    values: [binpack, binpak]
)");
  const ClientResponse r = client_->post("/api/v1/sweeps", R"({"sweepName": "typo"})");
  ASSERT_EQ(r.status, 400) << r.body;
  const nlohmann::json errors = nlohmann::json::parse(r.body)["errors"];
  ASSERT_EQ(errors.size(), 1u) << errors;
  EXPECT_EQ(errors[0]["file"], "sweeps/typo.yaml") << "relative to the scenarios folder";
  EXPECT_EQ(errors[0]["line"], 10);
  EXPECT_EQ(errors[0]["column"], 23);
  EXPECT_EQ(errors[0]["path"], "spec.axes[0].values[1]");
  EXPECT_NE(errors[0]["message"].get<std::string>().find("binpak"), std::string::npos);
  EXPECT_EQ(r.body.find(folder_.string()), std::string::npos) << "no server path";

  // 11 values × 1000 seeds = 11,000 runs: over the server's 10,000, refused before any point
  // is built.
  write("sweeps/huge.yaml",
        "apiVersion: gantry.dev/v1\nkind: Sweep\nmetadata: {name: huge}\nspec:\n  base: "
        "../quickstart.yaml\n  seeds: 1000\n  axes:\n  - {name: p, path: spec.seed, values: "
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]}\n");
  const nlohmann::json listed = get("/api/v1/sweeps/catalog")["sweeps"];
  const auto entry = std::find_if(listed.begin(), listed.end(),
                                  [](const nlohmann::json& f) { return f["name"] == "huge"; });
  ASSERT_NE(entry, listed.end());
  EXPECT_EQ((*entry)["error"],
            "too large for the server (at most 1000 points and 10000 runs): run it with gantry "
            "sweep")
      << "listed, and the page says why it cannot run";
  const ClientResponse huge = client_->post("/api/v1/sweeps", R"({"sweepName": "huge"})");
  ASSERT_EQ(huge.status, 400) << huge.body;
  EXPECT_EQ(nlohmann::json::parse(huge.body)["error"]["message"],
            "sweeps/huge.yaml: 11 points × 1000 seeds = 11000 runs; the server runs at most 1000 "
            "points and 10000 runs of a sweep: run it with gantry sweep sweeps/huge.yaml (on every "
            "core, into a results database)");

  EXPECT_EQ(client_->post("/api/v1/sweeps", R"({"sweepName": "nothing"})").status, 404);
  EXPECT_EQ(client_->post("/api/v1/sweeps", R"({"sweepName": 3})").status, 400);
  EXPECT_EQ(client_->post("/api/v1/sweeps", R"({})").status, 400);
  EXPECT_EQ(client_->post("/api/v1/plans", "[1]").status, 400);
  EXPECT_EQ(get("/api/v1/sweeps")["sweeps"].size(), 0u) << "nothing queued";
}

// A shipped sweep whose base lies outside the scenarios folder is refused before anything is
// read from it as a scenario.
TEST_F(StudyApi, ABaseOutsideTheFolderIsRefused) {
  fs::copy_file(folder_ / "quickstart.yaml", dir_ / "outside.yaml");
  write("sweeps/escape.yaml",
        "apiVersion: gantry.dev/v1\nkind: Sweep\nmetadata: {name: escape}\nspec:\n  base: "
        "../../outside.yaml\n  axes:\n  - {name: p, path: spec.seed, values: [1]}\n");
  const ClientResponse r = client_->post("/api/v1/sweeps", R"({"sweepName": "escape"})");
  ASSERT_EQ(r.status, 400) << r.body;
  const nlohmann::json e = nlohmann::json::parse(r.body)["errors"][0];
  EXPECT_EQ(e["path"], "spec.base");
  EXPECT_EQ(e["line"], 5);
  EXPECT_EQ(e["message"], "not a file of the scenarios folder");
}

// ... and so is a base inside it whose data file is not: refused before the file is opened, at
// the base's field.
TEST_F(StudyApi, ABasesDataFileOutsideTheFolderIsRefused) {
  write("sweeps/leaky-base.yaml",
        "apiVersion: gantry.dev/v1\nkind: Scenario\nmetadata: {name: leaky}\nspec:\n  cluster:\n"
        "    trace: {format: openb-nodes, file: /etc/hostname}\n");
  write("sweeps/leaky.yaml",
        "apiVersion: gantry.dev/v1\nkind: Sweep\nmetadata: {name: leaky}\nspec:\n  base: "
        "leaky-base.yaml\n  axes:\n  - {name: p, path: spec.seed, values: [1]}\n");
  const ClientResponse r = client_->post("/api/v1/sweeps", R"({"sweepName": "leaky"})");
  ASSERT_EQ(r.status, 400) << r.body;
  const nlohmann::json e = nlohmann::json::parse(r.body)["errors"][0];
  EXPECT_EQ(e["file"], "sweeps/leaky-base.yaml");
  EXPECT_EQ(e["line"], 6);
  EXPECT_EQ(e["path"], "spec.cluster.trace.file");
  EXPECT_EQ(r.body.find(folder_.string()), std::string::npos) << "no server path";
}

// DELETE of a queued job drops it; of a running sweep, stops it after the run in progress. The
// running sweep is 40 runs of the quickstart, cancelled as soon as its first run is reported: it
// ends "cancelled" with fewer runs done than its total.
TEST_F(StudyApi, DeleteCancels) {
  write("sweeps/long.yaml", R"(apiVersion: gantry.dev/v1
kind: Sweep
metadata: {name: long}
spec:
  base: ../quickstart.yaml
  seeds: 20
  axes:
  - {name: placement, path: spec.policy.placement, values: [binpack, spread]}
)");
  const std::string running =
      nlohmann::json::parse(client_->post("/api/v1/sweeps", R"({"sweepName": "long"})").body)["id"];
  const std::string queued = nlohmann::json::parse(
      client_->post("/api/v1/sweeps", R"({"sweepName": "small"})").body)["id"];
  EXPECT_EQ(get("/api/v1/sweeps/" + queued)["state"], "queued") << "one worker";
  EXPECT_EQ(client_->del("/api/v1/sweeps/" + queued).status, 200);
  EXPECT_EQ(client_->get("/api/v1/sweeps/" + queued).status, 404);
  bool asked = false;
  const std::string state = wait_final(running, [&](const nlohmann::json& j) {
    if (!asked && j["done"].get<int>() >= 1) {
      asked = true;
      EXPECT_EQ(client_->del("/api/v1/sweeps/" + running).status, 200);
    }
  });
  EXPECT_EQ(state, "cancelled");
  const nlohmann::json j = get("/api/v1/sweeps/" + running);
  EXPECT_EQ(j["state"], "cancelled");
  EXPECT_LT(j["done"].get<int>(), 40);
  EXPECT_EQ(j["result"], nullptr);
  EXPECT_EQ(client_->del("/api/v1/sweeps/nothing").status, 404);
}

}  // namespace study_api_test
}  // namespace gantry::web
