// The OpenAPI document (web/server/openapi.json) describes exactly the routes gantry serve has:
// every route is in the document with its method, and every path and method of the document is
// a route. The routes are those a real server registers (a ServeEngine on a fresh database).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "tests/web/temp_dir.hpp"
#include "web/server/api_access.hpp"
#include "web/server/api_routes.hpp"
#include "web/server/openapi_document.hpp"

namespace gantry::web {
namespace {

using OpenApiTest = testing::TempDirTest;

TEST_F(OpenApiTest, DocumentAndRoutesAgree) {
  EventBus bus;
  ServeEngine engine(
      {.db_path = (dir_ / "g.db").string(),
       .cluster_file = std::string(GANTRY_SOURCE_DIR) + "/scenarios/quickstart.yaml"},
      bus);
  SimulationService simulations(bus);
  TokenStore tokens((dir_ / "g.db").string());
  ApiServer api(tokens, {.ui_root = dir_ / "ui"});
  ApiContext ctx{engine, simulations, bus, std::string(GANTRY_SOURCE_DIR) + "/scenarios"};
  add_pipeline_routes(api.router(), ctx);
  add_cluster_routes(api.router(), ctx);
  StudyService studies(bus);
  add_sweep_routes(api.router(), studies, ctx.scenarios_dir);
  SweepCoordinator coordinator((dir_ / "g.db").string(), tokens, bus);
  add_distributed_sweep_routes(api.router(), coordinator);
  add_meta_routes(api, ctx);
  AuditLog audit((dir_ / "g.db").string());
  add_access_routes(api.router(), tokens, audit);

  const auto doc = nlohmann::json::parse(openapi_document());
  EXPECT_EQ(doc["openapi"], "3.1.0");
  std::set<std::pair<std::string, std::string>> routes, documented;
  for (const Route& r : api.router().routes()) {
    std::string path = r.pattern;
    if (path.rfind("/api/v1/", 0) == 0) path = path.substr(7);  // the document's server is /api/v1
    std::string method = r.method;
    for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    routes.insert({path, method});
  }
  for (const auto& [path, item] : doc["paths"].items())
    for (const auto& [method, op] : item.items())
      if (method == "get" || method == "post" || method == "delete")
        documented.insert({path, method});
  for (const auto& r : routes)
    EXPECT_TRUE(documented.count(r)) << r.second << " " << r.first << " is not documented";
  for (const auto& d : documented)
    EXPECT_TRUE(routes.count(d)) << d.second << " " << d.first << " has no route";
  EXPECT_GE(routes.size(), 25u);
}

}  // namespace
}  // namespace gantry::web
