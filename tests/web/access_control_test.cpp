// Roles, token revocation and the audit log through the API front, without a socket
// (api_server.hpp, api_access.hpp, audit_log.hpp): what viewer, editor and admin tokens may do;
// a token revoked by another connection to the database (as `gantry token revoke` does while
// the server runs) is refused at its next request; every state-changing request of a person's
// token is recorded with who, what, the target and the answer's status, paged newest first.

#include <gtest/gtest.h>

#include "tests/web/temp_dir.hpp"
#include "web/server/api_access.hpp"
#include "web/server/api_server.hpp"

namespace gantry::web {
namespace access_control_test {

class AccessControl : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    db_ = (dir_ / "g.db").string();
    tokens_ = std::make_unique<TokenStore>(db_);
    audit_ = std::make_unique<AuditLog>(db_);
    admin_ = tokens_->create(TokenRole::kAdmin, "ops");
    editor_ = tokens_->create(TokenRole::kEditor, "ana");
    viewer_ = tokens_->create(TokenRole::kViewer, "dashboard");
    api_ = std::make_unique<ApiServer>(
        *tokens_, ApiOptions{.ui_root = dir_ / "ui",
                             .log = [this](const std::string& line) { logged_ += line; },
                             .audit = audit_.get()});
    Router& router = api_->router();
    router.get("/api/v1/things", [](HttpRequest&) { return HttpResponse::json(200, {}); });
    router.post("/api/v1/things/{name}/trigger", [](HttpRequest& req) {
      if (req.param("name") == "missing") throw ApiError(404, "not_found", "no thing 'missing'");
      return HttpResponse::json(201, {{"name", req.param("name")}});
    });
    router.del("/api/v1/things/{name}", [](HttpRequest& req) {
      return HttpResponse::json(200, {{"deleted", req.param("name")}});
    });
    add_access_routes(router, *tokens_, *audit_);
  }

  HttpResponse call(const std::string& method, const std::string& path, const std::string& token,
                    const std::string& scheme = "Bearer") {
    HttpRequest req;
    req.method = method;
    const size_t q = path.find('?');
    req.path = path.substr(0, q);
    if (q != std::string::npos) req.query = *parse_query(path.substr(q + 1));
    if (!token.empty()) req.headers["authorization"] = scheme + " " + token;
    return api_->dispatch(req);
  }
  nlohmann::json body(const HttpResponse& r) { return nlohmann::json::parse(r.body); }
  nlohmann::json audit_entries(const std::string& query = "") {
    const HttpResponse r = call("GET", "/api/v1/audit" + query, admin_);
    EXPECT_EQ(r.status, 200) << r.body;
    return body(r);
  }

  std::string db_, admin_, editor_, viewer_, logged_;
  std::unique_ptr<TokenStore> tokens_;
  std::unique_ptr<AuditLog> audit_;
  std::unique_ptr<ApiServer> api_;
};

TEST_F(AccessControl, WhatEachRoleMayDo) {
  for (const std::string& t : {admin_, editor_, viewer_})
    EXPECT_EQ(call("GET", "/api/v1/things", t).status, 200);
  // Changing state: editor and admin.
  EXPECT_EQ(call("POST", "/api/v1/things/a/trigger", viewer_).status, 403);
  EXPECT_EQ(call("DELETE", "/api/v1/things/a", viewer_).status, 403);
  EXPECT_EQ(call("POST", "/api/v1/things/a/trigger", editor_).status, 201);
  EXPECT_EQ(call("DELETE", "/api/v1/things/a", editor_).status, 200);
  EXPECT_EQ(call("POST", "/api/v1/things/a/trigger", admin_).status, 201);
  // Tokens and the audit log: admin alone, reading included.
  for (const std::string& t : {editor_, viewer_}) {
    EXPECT_EQ(call("GET", "/api/v1/tokens", t).status, 403);
    EXPECT_EQ(call("DELETE", "/api/v1/tokens/dashboard", t).status, 403);
    EXPECT_EQ(call("GET", "/api/v1/audit", t).status, 403);
  }
  const HttpResponse refused = call("GET", "/api/v1/audit", editor_);
  EXPECT_EQ(body(refused)["error"]["message"],
            "only an admin token may GET /api/v1/audit (this token is editor)");
  EXPECT_EQ(call("GET", "/api/v1/tokens", admin_).status, 200);
  EXPECT_EQ(call("GET", "/api/v1/audit", admin_).status, 200);
  EXPECT_EQ(tokens_->list_users().size(), 3u) << "the refused DELETEs revoked nothing";
}

TEST_F(AccessControl, TheBearerSchemeIsCaseInsensitive) {
  // RFC 7235, section 2.1: the auth-scheme is a case-insensitive token.
  for (const std::string scheme : {"Bearer", "bearer", "BEARER"})
    EXPECT_EQ(call("GET", "/api/v1/things", viewer_, scheme).status, 200) << scheme;
  EXPECT_EQ(call("GET", "/api/v1/things", viewer_, "Basic").status, 401);
}

TEST_F(AccessControl, ATokenListShowsNamesAndRolesNeverTokens) {
  EXPECT_EQ(call("GET", "/api/v1/things", viewer_).status, 200);  // records its use
  const nlohmann::json list = body(call("GET", "/api/v1/tokens", admin_))["tokens"];
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0]["name"], "ops");
  EXPECT_EQ(list[0]["role"], "admin");
  EXPECT_EQ(list[1]["name"], "ana");
  EXPECT_EQ(list[1]["role"], "editor");
  EXPECT_TRUE(list[1]["lastUsed"].is_null()) << "never used";
  EXPECT_EQ(list[2]["name"], "dashboard");
  EXPECT_TRUE(list[2]["lastUsed"].is_string());
  const std::string text = list.dump();
  for (const std::string& t : {admin_, editor_, viewer_}) {
    EXPECT_EQ(text.find(t), std::string::npos);
    EXPECT_EQ(text.find(sha256_hex(t)), std::string::npos);
  }
}

// No cache between the table and the requests: a token revoked through another connection (the
// CLI's, while the server runs) is refused at once, and so is one revoked through the API.
TEST_F(AccessControl, ARevokedTokenIsRefusedAtItsNextRequest) {
  EXPECT_EQ(call("GET", "/api/v1/things", viewer_).status, 200);
  {
    TokenStore cli(db_);
    ASSERT_EQ(cli.revoke_named("dashboard"), RevokeOutcome::kRevoked);
  }
  const HttpResponse after = call("GET", "/api/v1/things", viewer_);
  EXPECT_EQ(after.status, 401);
  EXPECT_EQ(body(after)["error"]["message"], "unknown or revoked token");

  EXPECT_EQ(call("GET", "/api/v1/things", editor_).status, 200);
  const HttpResponse revoked = call("DELETE", "/api/v1/tokens/ana", admin_);
  EXPECT_EQ(revoked.status, 200) << revoked.body;
  EXPECT_EQ(body(revoked)["revoked"]["name"], "ana");
  EXPECT_EQ(call("GET", "/api/v1/things", editor_).status, 401);
  EXPECT_EQ(call("DELETE", "/api/v1/tokens/ana", admin_).status, 404) << "gone already";
  // The only admin token is kept: nothing could manage tokens without one.
  const HttpResponse last = call("DELETE", "/api/v1/tokens/ops", admin_);
  EXPECT_EQ(last.status, 409);
  EXPECT_NE(body(last)["error"]["message"].get<std::string>().find("only admin token"),
            std::string::npos);
  EXPECT_EQ(call("GET", "/api/v1/things", admin_).status, 200);
}

TEST_F(AccessControl, EveryStateChangingRequestIsAudited) {
  EXPECT_EQ(call("GET", "/api/v1/things", editor_).status, 200);                   // not recorded
  EXPECT_EQ(call("POST", "/api/v1/things/nightly/trigger", editor_).status, 201);  // 1
  EXPECT_EQ(call("POST", "/api/v1/things/missing/trigger", admin_).status, 404);   // 2
  EXPECT_EQ(call("DELETE", "/api/v1/things/nightly", viewer_).status, 403);        // 3
  EXPECT_EQ(call("POST", "/api/v1/things/x/trigger", "gty_" + std::string(64, '0')).status,
            401);  // nobody to name: not recorded
  EXPECT_EQ(call("DELETE", "/api/v1/tokens/ana", editor_).status, 403);  // 4
  EXPECT_EQ(call("GET", "/api/v1/tokens", editor_).status, 403)
      << "a refused read is not recorded either: reads change nothing";
  const nlohmann::json page = audit_entries();
  const nlohmann::json& e = page["entries"];
  ASSERT_EQ(e.size(), 4u) << page.dump(1);
  EXPECT_TRUE(page["next"].is_null());
  // Newest first.
  EXPECT_EQ(e[3]["token"], "ana");
  EXPECT_EQ(e[3]["role"], "editor");
  EXPECT_EQ(e[3]["method"], "POST");
  EXPECT_EQ(e[3]["route"], "/api/v1/things/{name}/trigger");
  EXPECT_EQ(e[3]["path"], "/api/v1/things/nightly/trigger");
  EXPECT_EQ(e[3]["target"], (nlohmann::json{{"name", "nightly"}}));
  EXPECT_EQ(e[3]["status"], 201);
  EXPECT_TRUE(e[3]["at"].is_string());
  EXPECT_EQ(e[2]["token"], "ops");
  EXPECT_EQ(e[2]["status"], 404);
  EXPECT_EQ(e[1]["token"], "dashboard");
  EXPECT_EQ(e[1]["role"], "viewer");
  EXPECT_EQ(e[1]["method"], "DELETE");
  EXPECT_EQ(e[1]["status"], 403);
  EXPECT_EQ(e[0]["route"], "/api/v1/tokens/{name}");
  EXPECT_EQ(e[0]["status"], 403);
  EXPECT_TRUE(logged_.empty()) << logged_;
}

// A path parameter that is not UTF-8 (civetweb decodes %FF into the byte) is recorded as the
// text "\xFF", as the server's answers echo it: not lost to a JSON error.
TEST_F(AccessControl, ATargetThatIsNotUtf8IsRecordedEscaped) {
  EXPECT_EQ(call("POST", "/api/v1/things/a\xff/trigger", editor_).status, 201);
  const nlohmann::json e = audit_entries()["entries"];
  ASSERT_EQ(e.size(), 1u) << logged_;
  EXPECT_EQ(e[0]["target"]["name"], "a\\xFF");
  EXPECT_EQ(e[0]["path"], "/api/v1/things/a\\xFF/trigger");
  EXPECT_TRUE(logged_.empty()) << logged_;
}

TEST_F(AccessControl, TheAuditLogIsPagedNewestFirst) {
  for (const std::string name : {"a", "b", "c", "d", "e"})
    EXPECT_EQ(call("POST", "/api/v1/things/" + name + "/trigger", editor_).status, 201);
  // Five entries, two a page: e d | c b | a.
  std::vector<std::string> seen;
  std::string query = "?limit=2";
  int pages = 0;
  while (true) {
    const nlohmann::json page = audit_entries(query);
    ++pages;
    for (const auto& entry : page["entries"]) seen.push_back(entry["target"]["name"]);
    if (page["next"].is_null()) break;
    query = "?limit=2&before=" + page["next"].get<std::string>();
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(seen, (std::vector<std::string>{"e", "d", "c", "b", "a"}));
  EXPECT_EQ(call("GET", "/api/v1/audit?limit=0", admin_).status, 400);
  EXPECT_EQ(call("GET", "/api/v1/audit?before=x", admin_).status, 400);
}

TEST_F(AccessControl, TheAuditLogKeepsItsNewestEntries) {
  AuditLog small((dir_ / "small.db").string(), 3);
  for (int i = 1; i <= 5; ++i) EXPECT_EQ(small.record({.method = "POST", .status = i}), i);
  // keep 3 of 5: ids 5, 4, 3.
  const AuditPage page = small.page(10, std::nullopt);
  ASSERT_EQ(page.entries.size(), 3u);
  EXPECT_EQ(page.entries[0].id, 5);
  EXPECT_EQ(page.entries[2].id, 3);
  EXPECT_EQ(page.entries[2].status, 3);
  EXPECT_FALSE(page.next.has_value());
}

}  // namespace access_control_test
}  // namespace gantry::web
