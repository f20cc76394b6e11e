// The listener's limits on connections (issue 22: sixteen event streams, idle sockets or a
// slowloris used to take every civetweb worker): streams past the cap are 503 and leave workers
// for other requests; idle and slow sockets are dropped; a body that does not arrive whole in
// time is 408 and never dispatched. Small servers (a few threads, timeouts of a fraction of a
// second) so each limit is reached with a handful of sockets; the deadlines below only bound a
// failure.

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "tests/adapters/kube/test_support.hpp"
#include "tests/web/raw_socket.hpp"
#include "web/client/http_client.hpp"
#include "web/server/http_server.hpp"

namespace gantry::web {
namespace {

using testing::RawSocket;
using namespace std::chrono_literals;

constexpr auto kFailAfter = 30s;

// Streams that write "hello" and then wait until the test opens the gate.
class Gate {
 public:
  void wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }
  void open() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

const std::string kStreamRequest = "GET /stream HTTP/1.1\r\nHost: t\r\n\r\n";

TEST(HttpConnections, StreamsPastTheCapAre503AndOtherRequestsStillAnswer) {
  Gate gate;
  // 4 workers, at most 2 streams: 2 held streams + the refused one's answer + a request fit.
  HttpServer server({.listen = "127.0.0.1:0", .threads = 4, .max_streams = 2},
                    [&](HttpRequest& req) {
                      if (req.path != "/stream") return HttpResponse::text(200, "ok\n");
                      HttpResponse r;
                      r.content_type = "text/event-stream";
                      r.stream = [&](StreamWriter& w) {
                        if (w.write("data: hello\n\n")) gate.wait();
                      };
                      return r;
                    });
  std::vector<RawSocket> streams;
  for (int i = 0; i < 2; ++i) {
    streams.emplace_back(server.port());
    ASSERT_TRUE(streams.back().send(kStreamRequest));
    ASSERT_TRUE(streams.back().wait_for("data: hello\n\n", kFailAfter)) << i;
  }
  RawSocket third(server.port());
  ASSERT_TRUE(third.send(kStreamRequest));
  ASSERT_TRUE(third.wait_for("\r\n\r\n", kFailAfter));
  EXPECT_EQ(third.received().rfind("HTTP/1.1 503 Service Unavailable\r\n", 0), 0u)
      << third.received();
  EXPECT_NE(third.received().find("Retry-After: 5\r\n"), std::string::npos);
  HttpClient client(server.url());
  EXPECT_EQ(client.get("/x").status, 200) << "workers are left for other requests";

  // The streams end (the server closes them): their places are free again.
  gate.open();
  for (RawSocket& s : streams) EXPECT_TRUE(s.wait_closed(kFailAfter));
  RawSocket again(server.port());
  ASSERT_TRUE(again.send(kStreamRequest));
  EXPECT_TRUE(again.wait_for("data: hello\n\n", kFailAfter)) << again.received();
}

TEST(HttpConnections, IdleAndSlowSocketsAreDropped) {
  std::atomic<int> calls{0};
  HttpServer server({.listen = "127.0.0.1:0", .threads = 2, .request_timeout = 300ms},
                    [&](HttpRequest&) {
                      ++calls;
                      return HttpResponse::text(200, "ok\n");
                    });
  RawSocket idle(server.port());
  RawSocket slow(server.port());
  ASSERT_TRUE(slow.send("GET /x HTTP/1.1\r\nHost: t\r\nX-Slow: a"));  // never ends its head
  EXPECT_TRUE(idle.wait_closed(kFailAfter));
  EXPECT_TRUE(slow.wait_closed(kFailAfter));
  EXPECT_EQ(calls.load(), 0);
  HttpClient client(server.url());
  EXPECT_EQ(client.get("/x").status, 200);
}

// With TLS the front accepts the connection: a client that never starts its handshake is dropped
// there too, and a real one still gets through.
TEST(HttpConnections, ASilentTlsClientIsDropped) {
  const auto& certs = kube::testing::test_certs();
  HttpServer server({.listen = "127.0.0.1:0",
                     .threads = 2,
                     .request_timeout = 300ms,
                     .tls_cert = certs.server_pem,
                     .tls_key = certs.server_pem},
                    [](HttpRequest&) { return HttpResponse::text(200, "ok\n"); });
  RawSocket idle(server.port());
  EXPECT_TRUE(idle.wait_closed(kFailAfter));
  HttpClient client(server.url(), {.ca_file = certs.ca_cert});
  EXPECT_EQ(client.get("/x").status, 200);
}

// 10 of the 100 bytes a Content-Length promises, then nothing: 408 and the connection closed;
// the dispatch function never sees a body cut short.
TEST(HttpConnections, ABodyThatDoesNotArriveWholeIs408) {
  std::atomic<int> calls{0};
  HttpServer server(
      {.listen = "127.0.0.1:0", .threads = 2, .request_timeout = 300ms, .body_timeout = 300ms},
      [&](HttpRequest&) {
        ++calls;
        return HttpResponse::text(200, "ok\n");
      });
  RawSocket slow(server.port());
  ASSERT_TRUE(slow.send("POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n0123456789"));
  ASSERT_TRUE(slow.wait_closed(kFailAfter));
  EXPECT_EQ(slow.received().rfind("HTTP/1.1 408 Request Timeout\r\n", 0), 0u) << slow.received();
  EXPECT_EQ(calls.load(), 0);
}

}  // namespace
}  // namespace gantry::web
