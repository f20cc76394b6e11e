// The audit log covers every route of a real server that changes state, with no route of its
// own to remember it: each POST and DELETE route `gantry serve` registers (the routes of a
// ServeEngine on a fresh database, as openapi_test.cpp builds them) is called once by an admin
// token and once by a viewer's, and each call has its entry, with the route, the method and the
// status it was answered; the viewer's are 403. A new route is in this test without an edit.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "tests/web/temp_dir.hpp"
#include "web/server/api_access.hpp"
#include "web/server/api_routes.hpp"

namespace gantry::web {
namespace audit_routes_test {

constexpr const char* kPipeline = R"(apiVersion: gantry.dev/v1
kind: Pipeline
metadata: {name: nightly}
spec:
  tasks:
  - {name: t, image: x}
)";

class AuditRoutes : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    const std::string db = (dir_ / "g.db").string();
    engine_ = std::make_unique<ServeEngine>(
        ServeConfig{.db_path = db,
                    .cluster_file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                    .kube = {},
                    .log = {}},
        bus_);
    simulations_ = std::make_unique<SimulationService>(bus_);
    studies_ = std::make_unique<StudyService>(bus_);
    tokens_ = std::make_unique<TokenStore>(db);
    audit_ = std::make_unique<AuditLog>(db);
    coordinator_ = std::make_unique<SweepCoordinator>(db, *tokens_, bus_);
    api_ = std::make_unique<ApiServer>(*tokens_,
                                       ApiOptions{.ui_root = dir_ / "ui", .audit = audit_.get()});
    ctx_ = std::make_unique<ApiContext>(
        ApiContext{*engine_, *simulations_, bus_, std::string(GANTRY_SOURCE_DIR) + "/scenarios"});
    add_pipeline_routes(api_->router(), *ctx_);
    add_cluster_routes(api_->router(), *ctx_);
    add_sweep_routes(api_->router(), *studies_, ctx_->scenarios_dir);
    add_distributed_sweep_routes(api_->router(), *coordinator_);
    add_meta_routes(*api_, *ctx_);
    add_access_routes(api_->router(), *tokens_, *audit_);
    admin_ = tokens_->create(TokenRole::kAdmin, "ops");
    tokens_->create(TokenRole::kAdmin, "ops2");  // so "ops" is not the last admin
    viewer_ = tokens_->create(TokenRole::kViewer, "dashboard");
    engine_->start();
    loop_thread_ = std::thread([this] { engine_->run(); });  // as gantry serve runs it
  }
  void TearDown() override {
    engine_->stop();
    loop_thread_.join();
    TempDirTest::TearDown();
  }

  HttpResponse call(const std::string& method, const std::string& path, const std::string& token,
                    const std::string& body = "{}", const std::string& type = "application/json") {
    HttpRequest req;
    req.method = method;
    req.path = path;
    req.body = body;
    req.headers["content-type"] = type;
    req.headers["authorization"] = "Bearer " + token;
    return api_->dispatch(req);
  }

  EventBus bus_;
  std::unique_ptr<ServeEngine> engine_;
  std::unique_ptr<SimulationService> simulations_;
  std::unique_ptr<StudyService> studies_;
  std::unique_ptr<TokenStore> tokens_;
  std::unique_ptr<AuditLog> audit_;
  std::unique_ptr<SweepCoordinator> coordinator_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<ApiContext> ctx_;
  std::string admin_, viewer_;
  std::thread loop_thread_;
};

// A path of `pattern` with its parameters filled in: the pipeline "nightly" (applied first),
// a logical time, an id and a shard that exist nowhere (a 404 is audited as well as a 200).
std::string fill(const std::string& pattern) {
  const std::map<std::string, std::string> values = {{"{name}", "nightly"},
                                                     {"{logicalTime}", "2026-01-01T00:00:00Z"},
                                                     {"{id}", "none"},
                                                     {"{shard}", "0"}};
  std::string path;
  for (const std::string& segment : split_path(pattern)) {
    const auto v = values.find(segment);
    path += "/" + (v != values.end() ? v->second : segment);
  }
  return path;
}

TEST_F(AuditRoutes, EveryStateChangingRouteIsAuditedForEveryRole) {
  ASSERT_EQ(call("POST", "/api/v1/pipelines", admin_, kPipeline, "application/yaml").status, 201);
  struct Call {
    std::string method, route, token;
    int status;
  };
  std::vector<Call> calls;
  for (const Route& route : api_->router().routes()) {
    if (route.is_public || !changes_state(route, route.method)) continue;
    // The viewer first: refused, it changes nothing the admin's call then meets.
    for (const std::string* token : {&viewer_, &admin_}) {
      // The tokens' own route: the viewer's token, revoked by the admin, would be gone; revoke
      // a token made for the purpose.
      std::string path = fill(route.pattern);
      if (route.pattern == "/api/v1/tokens/{name}") {
        if (token == &viewer_) tokens_->create(TokenRole::kViewer, "spare");
        path = "/api/v1/tokens/spare";
      }
      const HttpResponse r = call(route.method, path, *token);
      if (token == &viewer_) {
        EXPECT_EQ(r.status, 403) << route.method << " " << path;
      }
      calls.push_back(
          {route.method, route.pattern, token == &admin_ ? "ops" : "dashboard", r.status});
    }
  }
  // 6 pipeline routes (apply, delete, pause, resume, trigger, backfill), 2 run actions, 2
  // simulations, 4 sweeps and plans, 4 distributed sweeps, 1 token route: 19 when this was
  // written, each called twice; more as routes are added.
  EXPECT_GE(calls.size(), 2u * 19u);
  const AuditPage page = audit_->page(1000, std::nullopt);
  // Entries are newest first; the first (oldest) is the pipeline's apply.
  ASSERT_EQ(page.entries.size(), calls.size() + 1);
  for (size_t i = 0; i < calls.size(); ++i) {
    const AuditEntry& e = page.entries[calls.size() - 1 - i];
    EXPECT_EQ(e.method, calls[i].method) << i;
    EXPECT_EQ(e.route, calls[i].route) << i;
    EXPECT_EQ(e.token, calls[i].token) << e.route;
    EXPECT_EQ(e.status, calls[i].status) << e.method << " " << e.route;
  }
  const AuditEntry& applied = page.entries.back();
  EXPECT_EQ(applied.route, "/api/v1/pipelines");
  EXPECT_EQ(applied.status, 201);
}

TEST_F(AuditRoutes, AnActionsEntryNamesItsTarget) {
  ASSERT_EQ(call("POST", "/api/v1/pipelines", admin_, kPipeline, "application/yaml").status, 201);
  const HttpResponse triggered = call("POST", "/api/v1/pipelines/nightly/trigger", admin_, "");
  ASSERT_EQ(triggered.status, 201) << triggered.body;
  const std::string lt = nlohmann::json::parse(triggered.body)["logicalTime"];
  const HttpResponse marked =
      call("POST", "/api/v1/pipelines/nightly/runs/" + lt + "/mark-success", admin_, "");
  const AuditPage page = audit_->page(2, std::nullopt);
  ASSERT_EQ(page.entries.size(), 2u);
  EXPECT_EQ(page.entries[0].route, "/api/v1/pipelines/{name}/runs/{logicalTime}/mark-success");
  EXPECT_EQ(page.entries[0].target, (nlohmann::json{{"name", "nightly"}, {"logicalTime", lt}}));
  EXPECT_EQ(page.entries[0].status, marked.status);
  EXPECT_EQ(page.entries[1].route, "/api/v1/pipelines/{name}/trigger");
  EXPECT_EQ(page.entries[1].target, (nlohmann::json{{"name", "nightly"}}));
  EXPECT_EQ(page.entries[1].status, 201);
  EXPECT_EQ(page.entries[1].token, "ops");
  EXPECT_EQ(page.entries[1].role, "admin");
}

}  // namespace audit_routes_test
}  // namespace gantry::web
