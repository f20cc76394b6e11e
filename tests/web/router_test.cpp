// Route matching: parameters, literal-over-parameter precedence, 404 versus 405.

#include "web/server/router.hpp"

#include <gtest/gtest.h>

namespace gantry::web {
namespace {

HttpResponse named(std::string name) { return HttpResponse::text(200, std::move(name)); }

Router api() {
  Router r;
  r.get("/api/v1/pipelines", [](HttpRequest&) { return named("list"); });
  r.post("/api/v1/pipelines", [](HttpRequest&) { return named("create"); });
  r.get("/api/v1/pipelines/{name}", [](HttpRequest&) { return named("one"); });
  r.get("/api/v1/pipelines/new", [](HttpRequest&) { return named("literal"); });
  r.del("/api/v1/pipelines/{name}", [](HttpRequest&) { return named("delete"); });
  r.get("/api/v1/pipelines/{name}/runs/{logicalTime}", [](HttpRequest&) { return named("run"); });
  return r;
}

std::string call(const Router& r, const std::string& method, const std::string& path) {
  const Router::Match m = r.match(method, path);
  if (m.route == nullptr) return m.allowed.empty() ? "404" : "405";
  HttpRequest req;
  return m.route->handler(req).body;
}

TEST(Router, MatchesMethodAndPath) {
  const Router r = api();
  EXPECT_EQ(call(r, "GET", "/api/v1/pipelines"), "list");
  EXPECT_EQ(call(r, "POST", "/api/v1/pipelines"), "create");
  EXPECT_EQ(call(r, "GET", "/api/v1/pipelines/nightly"), "one");
  EXPECT_EQ(call(r, "DELETE", "/api/v1/pipelines/nightly"), "delete");
  EXPECT_EQ(call(r, "GET", "/api/v1/pipelines/nightly/runs/2026-10-01T03:00:00Z"), "run");
}

TEST(Router, BindsParameters) {
  const Router r = api();
  const Router::Match m = r.match("GET", "/api/v1/pipelines/a b/runs/2026-10-01T03:00:00Z");
  ASSERT_NE(m.route, nullptr);
  EXPECT_EQ(m.params.at("name"), "a b");
  EXPECT_EQ(m.params.at("logicalTime"), "2026-10-01T03:00:00Z");
}

TEST(Router, LiteralSegmentsBeatParametersWhateverTheOrder) {
  EXPECT_EQ(call(api(), "GET", "/api/v1/pipelines/new"), "literal");
}

TEST(Router, UnknownPathIs404AndWrongMethodIs405WithTheAllowedMethods) {
  const Router r = api();
  EXPECT_EQ(call(r, "GET", "/api/v1/nothing"), "404");
  EXPECT_EQ(call(r, "GET", "/api/v1/pipelines/"), "404") << "a trailing slash is another path";
  EXPECT_EQ(call(r, "GET", "/api/v1/pipelines//runs/x"), "404") << "an empty parameter";
  const Router::Match m = r.match("PUT", "/api/v1/pipelines/x");
  EXPECT_EQ(m.route, nullptr);
  EXPECT_EQ(m.allowed, (std::vector<std::string>{"DELETE", "GET"}));
}

TEST(Router, RefusesMalformedPatternsAndDuplicates) {
  Router r;
  EXPECT_THROW(r.get("api", [](HttpRequest&) { return named(""); }), std::invalid_argument);
  EXPECT_THROW(r.get("/a//b", [](HttpRequest&) { return named(""); }), std::invalid_argument);
  EXPECT_THROW(r.get("/a/{b", [](HttpRequest&) { return named(""); }), std::invalid_argument);
  r.get("/a", [](HttpRequest&) { return named(""); });
  EXPECT_THROW(r.get("/a", [](HttpRequest&) { return named(""); }), std::invalid_argument);
  EXPECT_NO_THROW(r.post("/a", [](HttpRequest&) { return named(""); }));
}

TEST(SplitPath, Segments) {
  EXPECT_EQ(split_path("/"), std::vector<std::string>{});
  EXPECT_EQ(split_path("/a/b"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(split_path("/a//b/"), (std::vector<std::string>{"a", "", "b", ""}));
}

}  // namespace
}  // namespace gantry::web
