// The civetweb listener on loopback with a real client (libcurl): requests reach the dispatch
// function with their method, decoded path, query, lower-case headers and body; bodies over the
// limit get 413 without reaching it; a streamed answer arrives chunk by chunk.

#include "web/server/http_server.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "tests/adapters/kube/test_support.hpp"
#include "web/client/http_client.hpp"

namespace gantry::web {
namespace {

HttpResponse echo(HttpRequest& req) {
  nlohmann::json j;
  j["method"] = req.method;
  j["path"] = req.path;
  j["query"] = req.query;
  j["body"] = req.body;
  j["auth"] = req.header("authorization").value_or("");
  return HttpResponse::json(200, j);
}

TEST(HttpServer, RequestsReachTheDispatchFunction) {
  HttpServer server({.listen = "127.0.0.1:0", .threads = 2}, echo);
  ASSERT_GT(server.port(), 0);
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()));
  HttpClient client(server.url(), {.token = "t0k"});
  const ClientResponse r = client.post("/api/v1/pipelines/a%20b?dryRun=true&x=1+2",
                                       "kind: Pipeline\n", "application/yaml");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.headers.at("content-type"), "application/json");
  const auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["method"], "POST");
  EXPECT_EQ(j["path"], "/api/v1/pipelines/a b");
  EXPECT_EQ(j["query"]["dryRun"], "true");
  EXPECT_EQ(j["query"]["x"], "1 2");
  EXPECT_EQ(j["body"], "kind: Pipeline\n");
  EXPECT_EQ(j["auth"], "Bearer t0k");
}

TEST(HttpServer, BodiesOverTheLimitAre413AndNeverDispatched) {
  std::atomic<int> calls{0};
  HttpServer server({.listen = "127.0.0.1:0", .threads = 2, .max_body_bytes = 1000},
                    [&](HttpRequest& req) {
                      ++calls;
                      return echo(req);
                    });
  HttpClient client(server.url());
  EXPECT_EQ(client.post("/x", std::string(1000, 'a')).status, 200) << "exactly the limit is fine";
  const ClientResponse big = client.post("/x", std::string(1001, 'a'));
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(nlohmann::json::parse(big.body)["error"]["code"], "too_large");
  EXPECT_EQ(calls.load(), 1);
}

TEST(HttpServer, StreamsChunksUntilTheClientStops) {
  HttpServer server({.listen = "127.0.0.1:0", .threads = 2}, [](HttpRequest&) {
    HttpResponse r;
    r.content_type = "text/event-stream";
    r.stream = [](StreamWriter& w) {
      for (int i = 0; i < 1000; ++i)
        if (!w.write("id: " + std::to_string(i) + "\ndata: {}\n\n")) return;
    };
    return r;
  });
  HttpClient client(server.url());
  std::string got;
  const long status = client.stream("/events", [&](std::string_view chunk) {
    got += chunk;
    return got.find("id: 2\n") == std::string::npos;  // stop after the third event
  });
  EXPECT_EQ(status, 200);
  EXPECT_EQ(got.rfind("id: 0\ndata: {}\n\nid: 1\ndata: {}\n\nid: 2\n", 0), 0u) << got.substr(0, 80);
}

// TLS (gantry serve --tls-cert --tls-key): the TlsFront answers on the address, with the
// certificate of tests/adapters/kube/test_support.hpp's CA; streams pass through it; a client
// that does not trust the CA, or speaks plain HTTP, gets nothing.
TEST(HttpServer, ServesTlsWithTheGivenCertificateAndStreamsThroughIt) {
  const auto& certs = kube::testing::test_certs();
  HttpServer server({.listen = "127.0.0.1:0",
                     .threads = 2,
                     .tls_cert = certs.server_pem,
                     .tls_key = certs.server_pem},
                    [](HttpRequest& req) {
                      if (req.path != "/events") return echo(req);
                      HttpResponse r;
                      r.content_type = "text/event-stream";
                      r.stream = [](StreamWriter& w) {
                        for (int i = 0; i < 100; ++i)
                          if (!w.write("id: " + std::to_string(i) + "\n\n")) return;
                      };
                      return r;
                    });
  EXPECT_EQ(server.url(), "https://127.0.0.1:" + std::to_string(server.port()));
  HttpClient client(server.url(), {.token = "t", .ca_file = certs.ca_cert});
  const ClientResponse r = client.post("/x?a=1", "hello");
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body)["body"], "hello");
  std::string got;
  EXPECT_EQ(client.stream("/events",
                          [&](std::string_view chunk) {
                            got += chunk;
                            return got.find("id: 9\n") == std::string::npos;
                          }),
            200);
  EXPECT_EQ(got.rfind("id: 0\n\nid: 1\n\n", 0), 0u);
  HttpClient untrusting(server.url(), {.ca_file = certs.other_ca_cert});
  EXPECT_THROW(untrusting.get("/x"), std::runtime_error) << "a CA the client does not trust";
  HttpClient plain("http://127.0.0.1:" + std::to_string(server.port()));
  EXPECT_THROW(plain.get("/x"), std::runtime_error) << "no plain HTTP on the TLS port";
  EXPECT_THROW(
      HttpServer({.listen = "127.0.0.1:0", .tls_cert = certs.ca_cert, .tls_key = certs.client_key},
                 echo),
      std::runtime_error)
      << "a key that is not the certificate's";
}

TEST(HttpServer, RefusesABadAddressAndAPortInUse) {
  EXPECT_THROW(HttpServer({.listen = "nonsense"}, echo), std::runtime_error);
  HttpServer first({.listen = "127.0.0.1:0", .threads = 1}, echo);
  EXPECT_THROW(
      HttpServer({.listen = "127.0.0.1:" + std::to_string(first.port()), .threads = 1}, echo),
      std::runtime_error);
}

TEST(ListenAddress, SplitsAndRecognisesLoopback) {
  EXPECT_EQ(split_listen_address("127.0.0.1:8080"), std::make_pair(std::string("127.0.0.1"), 8080));
  EXPECT_EQ(split_listen_address("[::1]:0"), std::make_pair(std::string("::1"), 0));
  EXPECT_EQ(split_listen_address("host:99999"), std::nullopt);
  EXPECT_EQ(split_listen_address(":80"), std::nullopt);
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("localhost"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_FALSE(is_loopback_host("10.0.0.1"));
}

}  // namespace
}  // namespace gantry::web
