// The API front without a socket: tokens and roles, 404 and 405, errors as JSON (internal
// detail never sent), CORS only for the configured origin, metrics by route pattern.

#include "web/server/api_server.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "tests/web/temp_dir.hpp"

namespace gantry::web {
namespace {

namespace fs = std::filesystem;

class ApiServerTest : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    tokens_ = std::make_unique<TokenStore>((dir_ / "g.db").string());
    admin_ = tokens_->create(TokenRole::kAdmin, "a");
    viewer_ = tokens_->create(TokenRole::kViewer, "v");
  }

  std::unique_ptr<ApiServer> make(std::string allow_origin = "") {
    auto made = std::make_unique<ApiServer>(
        *tokens_, ApiOptions{.ui_root = dir_ / "ui",
                             .allow_origin = std::move(allow_origin),
                             .log = [this](const std::string& line) { logged_ += line; }});
    ApiServer& api = *made;
    api.router().get("/api/v1/things/{name}", [](HttpRequest& req) {
      if (req.param("name") == "missing") throw ApiError(404, "not_found", "no thing 'missing'");
      if (req.param("name") == "boom") throw std::runtime_error("secret internal detail");
      return HttpResponse::json(200, {{"name", req.param("name")}});
    });
    api.router().post("/api/v1/things", [](HttpRequest&) {
      return HttpResponse::json(201, {{"ok", true}});
    });
    api.router().get("/api/v1/events", [](HttpRequest&) { return HttpResponse::json(200, {}); });
    api.router()
        .get("/healthz", [](HttpRequest&) { return HttpResponse::text(200, "ok\n"); })
        .is_public = true;
    return made;
  }

  // make(), kept alive for the rest of the test.
  ApiServer* make_kept(std::string allow_origin = "") {
    kept_.push_back(make(std::move(allow_origin)));
    return kept_.back().get();
  }

  HttpResponse call(ApiServer& api, std::string method, std::string path, std::string token = "",
                    std::map<std::string, std::string> headers = {}) {
    HttpRequest req;
    req.method = std::move(method);
    const size_t q = path.find('?');
    req.path = path.substr(0, q);
    if (q != std::string::npos) req.query = *parse_query(path.substr(q + 1));
    req.headers = std::move(headers);
    if (!token.empty()) req.headers["authorization"] = "Bearer " + token;
    return api.dispatch(req);
  }

  static std::string code_of(const HttpResponse& r) {
    return nlohmann::json::parse(r.body)["error"]["code"].get<std::string>();
  }

  std::unique_ptr<TokenStore> tokens_;
  std::string admin_, viewer_, logged_;
  std::vector<std::unique_ptr<ApiServer>> kept_;
};

TEST_F(ApiServerTest, TokensAndRoles) {
  ApiServer& api = *make_kept();
  EXPECT_EQ(call(api, "GET", "/healthz").status, 200) << "public";
  const HttpResponse none = call(api, "GET", "/api/v1/things/x");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(code_of(none), "unauthorized");
  EXPECT_EQ(call(api, "GET", "/api/v1/things/x", "gty_" + std::string(64, '0')).status, 401);
  EXPECT_EQ(call(api, "GET", "/api/v1/things/x", viewer_).status, 200);
  const HttpResponse write = call(api, "POST", "/api/v1/things", viewer_);
  EXPECT_EQ(write.status, 403);
  EXPECT_EQ(code_of(write), "forbidden");
  EXPECT_EQ(call(api, "POST", "/api/v1/things", admin_).status, 201);
}

TEST_F(ApiServerTest, OnlyTheEventStreamTakesATokenInTheQuery) {
  ApiServer& api = *make_kept();
  EXPECT_EQ(call(api, "GET", "/api/v1/events?token=" + viewer_).status, 200);
  EXPECT_EQ(call(api, "GET", "/api/v1/things/x?token=" + viewer_).status, 401);
}

TEST_F(ApiServerTest, NotFoundMethodNotAllowedAndErrors) {
  ApiServer& api = *make_kept();
  EXPECT_EQ(call(api, "GET", "/api/v1/nothing", admin_).status, 404);
  const HttpResponse put = call(api, "DELETE", "/api/v1/things", admin_);
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(put.headers, (decltype(put.headers){{"Allow", "POST"}}));
  const HttpResponse missing = call(api, "GET", "/api/v1/things/missing", admin_);
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, R"({"error":{"code":"not_found","message":"no thing 'missing'"}})"
                          "\n");
  const HttpResponse boom = call(api, "GET", "/api/v1/things/boom", admin_);
  EXPECT_EQ(boom.status, 500);
  EXPECT_EQ(boom.body.find("secret"), std::string::npos) << "internal detail is logged, not sent";
  EXPECT_NE(logged_.find("secret internal detail"), std::string::npos);
}

TEST_F(ApiServerTest, CorsOnlyForTheConfiguredOrigin) {
  ApiServer& closed = *make_kept();
  const HttpResponse a =
      call(closed, "GET", "/api/v1/things/x", admin_, {{"origin", "https://evil.example"}});
  for (const auto& [k, v] : a.headers) EXPECT_NE(k, "Access-Control-Allow-Origin");
  EXPECT_EQ(
      call(closed, "OPTIONS", "/api/v1/things", "", {{"origin", "https://evil.example"}}).status,
      405);
  ApiServer& open = *make_kept("https://ui.example");
  const HttpResponse b =
      call(open, "GET", "/api/v1/things/x", admin_, {{"origin", "https://ui.example"}});
  EXPECT_NE(std::find(b.headers.begin(), b.headers.end(),
                      std::make_pair(std::string("Access-Control-Allow-Origin"),
                                     std::string("https://ui.example"))),
            b.headers.end());
  const HttpResponse other =
      call(open, "GET", "/api/v1/things/x", admin_, {{"origin", "https://evil.example"}});
  for (const auto& [k, v] : other.headers) EXPECT_NE(k, "Access-Control-Allow-Origin");
  EXPECT_EQ(call(open, "OPTIONS", "/api/v1/things", "", {{"origin", "https://ui.example"}}).status,
            204);
}

TEST_F(ApiServerTest, MetricsCountByRoutePatternAndCode) {
  ApiServer& api = *make_kept();
  call(api, "GET", "/api/v1/things/a", admin_);
  call(api, "GET", "/api/v1/things/b", admin_);
  call(api, "GET", "/api/v1/things/c");
  const std::string text = api.metrics().prometheus();
  EXPECT_NE(
      text.find(
          R"(gantry_http_requests_total{route="/api/v1/things/{name}",method="GET",code="200"} 2)"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          R"(gantry_http_requests_total{route="/api/v1/things/{name}",method="GET",code="401"} 1)"),
      std::string::npos)
      << text;
  EXPECT_NE(
      text.find(R"(gantry_http_request_duration_seconds_count{route="/api/v1/things/{name}"} 3)"),
      std::string::npos)
      << text;
}

TEST_F(ApiServerTest, QueryIntegersAreCheckedWithTheirName) {
  HttpRequest req;
  req.query = {{"limit", "50"}, {"bad", "5x"}, {"big", "100000"}};
  EXPECT_EQ(query_int(req, "limit", 10, 1, 1000), 50);
  EXPECT_EQ(query_int(req, "absent", 10, 1, 1000), 10);
  try {
    query_int(req, "bad", 10, 1, 1000);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 400);
    EXPECT_EQ(std::string(e.what()), "?bad: expected an integer from 1 to 1000, got '5x'");
  }
  EXPECT_THROW(query_int(req, "big", 10, 1, 1000), ApiError);
}

}  // namespace
}  // namespace gantry::web
