// Requests that used to end `gantry serve` (issue 22, section 2): bytes that are not UTF-8 echoed
// in an error, and exceptions a handler lets out. In process: the ApiServer's dispatch, then
// the civetweb listener with a real client.

#include <gtest/gtest.h>

#include "tests/web/temp_dir.hpp"
#include "web/client/http_client.hpp"
#include "web/server/api_server.hpp"
#include "web/server/http_server.hpp"

namespace gantry::web {
namespace {

class HostileRequests : public testing::TempDirTest {
 protected:
  void SetUp() override {
    TempDirTest::SetUp();
    tokens_ = std::make_unique<TokenStore>((dir_ / "g.db").string());
    viewer_ = tokens_->create(TokenRole::kViewer, "v");
    api_ = std::make_unique<ApiServer>(
        *tokens_, ApiOptions{.ui_root = dir_ / "ui",
                             .log = [this](const std::string& line) { logged_ += line + "\n"; }});
    api_->router().get("/api/v1/things/{name}", [](HttpRequest& req) -> HttpResponse {
      if (req.param("name") == "int") throw 42;  // not a std::exception
      throw ApiError(404, "not_found", "no thing '" + req.param("name") + "'");
    });
  }

  HttpResponse call(const std::string& path, const std::string& token = "") {
    HttpRequest req;
    req.method = "GET";
    req.path = path;
    if (!token.empty()) req.headers["authorization"] = "Bearer " + token;
    return api_->dispatch(req);
  }

  std::unique_ptr<TokenStore> tokens_;
  std::unique_ptr<ApiServer> api_;
  std::string viewer_, logged_;
};

// The 404 of an unknown route echoes the path (decoded by civetweb: %ff is the byte 0xFF)
// before any token is checked; the byte comes back as the text \xFF in valid JSON.
TEST_F(HostileRequests, ANonUtf8PathIsA404ThatEchoesTheByteEscaped) {
  const HttpResponse r = call("/api/v1/x\xFF");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.body, R"({"error":{"code":"not_found","message":"no route /api/v1/x\\xFF"}})"
                    "\n");
}

TEST_F(HostileRequests, AHandlersMessageWithBadBytesIsEscaped) {
  const HttpResponse r = call("/api/v1/things/\xFF\xFE", viewer_);
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["message"], "no thing '\\xFF\\xFE'");
}

TEST_F(HostileRequests, AnExceptionOfAnyTypeIsA500ThatIsLogged) {
  const HttpResponse r = call("/api/v1/things/int", viewer_);
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(nlohmann::json::parse(r.body)["error"]["code"], "internal");
  EXPECT_NE(logged_.find("GET /api/v1/things/int: an exception of unknown type"), std::string::npos)
      << logged_;
}

// The scheme of "Authorization: Bearer <token>" is case-insensitive (RFC 7235, section 2.1).
TEST_F(HostileRequests, TheBearerSchemeIsCaseInsensitive) {
  HttpRequest req;
  req.method = "GET";
  req.path = "/api/v1/things/missing";
  for (const std::string scheme : {"Bearer", "bearer", "BEARER", "bEaReR"}) {
    req.headers["authorization"] = scheme + " " + viewer_;
    EXPECT_EQ(api_->dispatch(req).status, 404) << scheme << ": past the token check";
  }
  req.headers["authorization"] = "Bearer  " + viewer_;
  EXPECT_EQ(api_->dispatch(req).status, 404) << "two spaces";
  for (const std::string& wrong :
       std::vector<std::string>{"Basic " + viewer_, "Bearer" + viewer_, "Bearer ", viewer_}) {
    req.headers["authorization"] = wrong;
    EXPECT_EQ(api_->dispatch(req).status, 401) << wrong;
  }
}

// civetweb answers a CORS preflight itself, before any handler, with
// "Access-Control-Allow-Origin: *" unless configured not to; without --allow-origin no answer may
// carry that header. Through the real listener, as a browser's preflight comes.
TEST_F(HostileRequests, APreflightWithoutAllowOriginAllowsNoOrigin) {
  HttpServer server({.listen = "127.0.0.1:0", .threads = 2},
                    [this](HttpRequest& req) { return api_->dispatch(req); });
  HttpClient client(server.url());
  const ClientResponse r = client.request("OPTIONS", "/api/v1/things/x", {}, {},
                                          {{"Origin", "https://evil.example"},
                                           {"Access-Control-Request-Method", "DELETE"},
                                           {"Access-Control-Request-Headers", "authorization"}});
  EXPECT_EQ(r.status, 405) << "no OPTIONS route: the API's answer, not civetweb's";
  EXPECT_EQ(r.headers.count("access-control-allow-origin"), 0u);
  EXPECT_EQ(r.headers.count("access-control-allow-methods"), 0u);
}

// The listener: a dispatch function or a stream that throws ends that request, never the
// process; the next request on the same server is answered.
TEST(HostileListener, ExceptionsOfDispatchAndStreamsAreContained) {
  std::string logged;
  std::mutex mu;
  HttpServer server({.listen = "127.0.0.1:0",
                     .threads = 2,
                     .log =
                         [&](const std::string& line) {
                           std::lock_guard lock(mu);
                           logged += line + "\n";
                         }},
                    [](HttpRequest& req) -> HttpResponse {
                      if (req.path == "/std") throw std::runtime_error("secret detail");
                      if (req.path == "/int") throw 7;
                      if (req.path == "/stream") {
                        HttpResponse r;
                        r.content_type = "text/event-stream";
                        r.stream = [](StreamWriter& w) {
                          w.write("id: 1\n\n");
                          throw std::runtime_error("stream broke");
                        };
                        return r;
                      }
                      return HttpResponse::text(200, "ok\n");
                    });
  HttpClient client(server.url());
  const ClientResponse std_error = client.get("/std");
  EXPECT_EQ(std_error.status, 500);
  EXPECT_EQ(std_error.body.find("secret"), std::string::npos) << "logged, not sent";
  EXPECT_EQ(client.get("/int").status, 500);
  std::string got;
  EXPECT_EQ(client.stream("/stream",
                          [&](std::string_view chunk) {
                            got += chunk;
                            return true;
                          }),
            200);
  EXPECT_EQ(got, "id: 1\n\n") << "what was written before the exception, then the end";
  EXPECT_EQ(client.get("/ok").status, 200) << "the server still answers";
  std::lock_guard lock(mu);
  EXPECT_NE(logged.find("GET /std: secret detail"), std::string::npos) << logged;
  EXPECT_NE(logged.find("GET /int: an exception of unknown type"), std::string::npos) << logged;
  EXPECT_NE(logged.find("GET /stream: stream: stream broke"), std::string::npos) << logged;
}

}  // namespace
}  // namespace gantry::web
