#pragma once
// An in-process `gantry serve` for the tests of the pipeline routes: a ServeEngine on a fresh
// database and the quickstart cluster, its loop on its own thread (as gantry serve runs it),
// the pipeline routes on an ApiServer, an admin token ("ops") and a viewer's ("dashboard").
// Requests go through ApiServer::dispatch(): roles, audit and errors as over HTTP.

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "tests/web/temp_dir.hpp"
#include "web/server/api_access.hpp"
#include "web/server/api_routes.hpp"

namespace gantry::web::testing {

class PipelineApiTest : public TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    start_server();
  }
  void TearDown() override {
    stop_server();
    TempDirTest::TearDown();
  }
  // A server on the test's database: a second call after stop_server() is a restart.
  void start_server() {
    engine_ = std::make_unique<ServeEngine>(
        ServeConfig{.db_path = db(),
                    .cluster_file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml",
                    .kube = {},
                    .log = [this](const std::string& line) { logged_.push_back(line); }},
        bus_);
    simulations_ = std::make_unique<SimulationService>(bus_);
    tokens_ = std::make_unique<TokenStore>(db());
    audit_ = std::make_unique<AuditLog>(db());
    api_ = std::make_unique<ApiServer>(*tokens_,
                                       ApiOptions{.ui_root = dir_ / "ui", .audit = audit_.get()});
    ctx_ = std::make_unique<ApiContext>(
        ApiContext{*engine_, *simulations_, bus_, std::string(GANTRY_SOURCE_DIR) + "/scenarios"});
    add_pipeline_routes(api_->router(), *ctx_);
    if (admin_.empty()) {
      admin_ = tokens_->create(TokenRole::kAdmin, "ops");
      viewer_ = tokens_->create(TokenRole::kViewer, "dashboard");
    }
    engine_->start();
    loop_thread_ = std::thread([this] { engine_->run(); });
  }
  void stop_server() {
    engine_->stop();
    loop_thread_.join();
    api_.reset();
    ctx_.reset();
    audit_.reset();
    tokens_.reset();
    simulations_.reset();
    engine_.reset();
  }

  HttpResponse call(const std::string& method, const std::string& path,
                    const std::string& body = "", const std::string& type = "application/json",
                    const std::string* token = nullptr) {
    HttpRequest req;
    req.method = method;
    const size_t q = path.find('?');
    req.path = path.substr(0, q);
    if (q != std::string::npos)
      req.query = parse_query(path.substr(q + 1)).value_or(std::map<std::string, std::string>{});
    req.body = body;
    req.headers["content-type"] = type;
    req.headers["authorization"] = "Bearer " + (token != nullptr ? *token : admin_);
    return api_->dispatch(req);
  }
  // The JSON of an answer, after checking its status.
  nlohmann::json json_of(const HttpResponse& r, int status) {
    EXPECT_EQ(r.status, status) << r.body;
    const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.body;
    return j;
  }
  void apply(const std::string& yaml) {
    const HttpResponse r = call("POST", "/api/v1/pipelines?paused=false", yaml, "application/yaml");
    ASSERT_TRUE(r.status == 200 || r.status == 201) << r.body;
  }
  // Triggers `pipeline` and returns its run's logical time.
  std::string trigger(const std::string& pipeline, const std::string& body = "") {
    const nlohmann::json run =
        json_of(call("POST", "/api/v1/pipelines/" + pipeline + "/trigger", body), 201);
    return run.value("logicalTime", "");
  }
  std::string db() const { return (dir_ / "g.db").string(); }

  EventBus bus_;
  std::unique_ptr<ServeEngine> engine_;
  std::unique_ptr<SimulationService> simulations_;
  std::unique_ptr<TokenStore> tokens_;
  std::unique_ptr<AuditLog> audit_;
  std::unique_ptr<ApiServer> api_;
  std::unique_ptr<ApiContext> ctx_;
  std::string admin_, viewer_;
  std::vector<std::string> logged_;
  std::thread loop_thread_;
};

}  // namespace gantry::web::testing
