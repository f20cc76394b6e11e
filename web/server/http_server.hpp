#pragma once
// The HTTP listener of `gantry serve`, on civetweb: it turns each request into an HttpRequest,
// hands it to one dispatch function on the connection's thread, and writes the HttpResponse
// back (or streams it, for Server-Sent Events). It knows nothing of the API: routing, tokens
// and JSON live in the dispatch function (api_server.hpp).
//
// Threads: civetweb runs `threads` worker threads; dispatch runs on them, concurrently, so it
// must be thread-safe (the API posts engine work to the event loop and waits, DESIGN.md rule 1).
// A streamed response holds its thread until the stream function returns.
//
// Limits (issue 22: sixteen event streams, idle sockets or a slowloris used to take every
// worker, /healthz included):
//  - at most `max_streams` streamed answers at once (half the workers by default); one more is
//    refused with 503 and Retry-After, so streams never take the workers other requests need;
//  - a request's head must arrive within `request_timeout`, else the connection is dropped (an
//    idle socket, a slowloris: civetweb's deadline counts from the first wait, trickled bytes
//    do not extend it); a kept-alive connection idle for half a second is closed;
//  - a body must arrive whole within `body_timeout` (408, connection closed), and a body larger
//    than `max_body_bytes` is refused with 413 before it is read (by its Content-Length) or as
//    soon as it grows past the limit (chunked); the connection is closed.
// What remains: `threads` connections that each send a head slowly still hold every worker,
// for `request_timeout` at most; civetweb gives one thread to each connection.
//
// TLS (tls_cert and tls_key): civetweb listens on a loopback port of its own and a TlsFront
// (tls_front.hpp) on the address asked for.
//
// Errors: no exception ends the process. One thrown by the dispatch function is a 500 (logged,
// not sent: it may hold internal detail); one thrown by a stream function ends that stream.
// The constructor throws std::runtime_error naming the address when it cannot listen
// there (port in use, bad address, TLS files unreadable or not a pair).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "web/server/http_message.hpp"
#include "web/server/tls_front.hpp"

struct mg_context;
struct mg_connection;

namespace gantry::web {

struct HttpServerOptions {
  std::string listen = "127.0.0.1:8080";  // host:port; port 0 picks a free port
  // civetweb's workers: each connection holds one while its request is read and answered (and
  // for as long as it stays open between requests, up to half a second).
  int threads = 256;
  // Streamed answers at once; 0: half the threads (at least one).
  int max_streams = 0;
  int64_t max_body_bytes = 4 << 20;
  // A request's head must arrive whole within this; also each read and write's bound after it.
  std::chrono::milliseconds request_timeout{10'000};
  // A body must arrive whole within this.
  std::chrono::milliseconds body_timeout{30'000};
  std::string tls_cert{};  // PEM certificate chain and key file paths; both or neither
  std::string tls_key{};
  // Where errors that reach the listener are reported (an exception of the dispatch function
  // or of a stream); defaults to stderr.
  std::function<void(const std::string&)> log{};
};

class HttpServer {
 public:
  using Dispatch = std::function<HttpResponse(HttpRequest&)>;
  HttpServer(HttpServerOptions options, Dispatch dispatch);
  // Stops accepting, waits for every request in progress (streams must notice and return).
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The port actually listened on (the one chosen when the options said 0).
  int port() const { return port_; }
  bool tls() const { return !options_.tls_cert.empty(); }
  // "http://127.0.0.1:8080"
  std::string url() const;

 private:
  static int on_request(mg_connection* conn, void* self);
  int handle(mg_connection* conn);
  // Fills `req` from the connection (head, query, body); an answer when the request is refused
  // (malformed query, body over the limit: then the connection is closed).
  std::optional<HttpResponse> read_request(mg_connection* conn, HttpRequest& req);

  HttpServerOptions options_;
  Dispatch dispatch_;
  int max_streams_ = 0;
  std::atomic<int> active_streams_{0};
  mg_context* ctx_ = nullptr;
  std::unique_ptr<TlsFront> tls_;  // with TLS: the front on the address asked for
  int port_ = 0;
  std::string host_;
};

// Splits "host:port" (IPv4 or a name; "[::1]:8080" for IPv6). nullopt when malformed or the
// port is not 0..65535.
std::optional<std::pair<std::string, int>> split_listen_address(const std::string& listen);
// Is `host` a loopback address or name ("127.x.x.x", "::1", "localhost")?
bool is_loopback_host(const std::string& host);

}  // namespace gantry::web
