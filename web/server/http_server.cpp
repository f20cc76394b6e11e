#include "web/server/http_server.hpp"

#include <civetweb.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace gantry::web {

namespace {

// civetweb must be initialised once per process before any server starts.
void init_civetweb() {
  static std::once_flag once;
  std::call_once(once, [] { mg_init_library(0); });
}

// civetweb's own logging goes nowhere: the API logs what matters.
int quiet_log(const mg_connection*, const char*) { return 1; }

HttpResponse internal_error() {
  return HttpResponse::error(500, "internal", "internal error (logged by the server)");
}

class ConnectionWriter final : public StreamWriter {
 public:
  explicit ConnectionWriter(mg_connection* conn) : conn_(conn) {}
  bool write(std::string_view chunk) override {
    if (chunk.empty()) return true;
    return mg_write(conn_, chunk.data(), chunk.size()) == static_cast<int>(chunk.size());
  }

 private:
  mg_connection* conn_;
};

void send_head(mg_connection* conn, const HttpResponse& r, int64_t length, bool close) {
  std::string head =
      "HTTP/1.1 " + std::to_string(r.status) + " " + status_reason(r.status) + "\r\n";
  head += "Content-Type: " + r.content_type + "\r\n";
  if (length >= 0) head += "Content-Length: " + std::to_string(length) + "\r\n";
  head += "X-Content-Type-Options: nosniff\r\n";
  for (const auto& [k, v] : r.headers) head += k + ": " + v + "\r\n";
  if (close) head += "Connection: close\r\n";
  head += "\r\n";
  mg_write(conn, head.data(), head.size());
}

void send(mg_connection* conn, const HttpResponse& r, bool close = false) {
  send_head(conn, r, static_cast<int64_t>(r.body.size()), close);
  if (!r.body.empty()) mg_write(conn, r.body.data(), r.body.size());
}

}  // namespace

std::optional<std::pair<std::string, int>> split_listen_address(const std::string& listen) {
  std::string host;
  std::string port;
  if (!listen.empty() && listen[0] == '[') {
    const size_t close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':')
      return std::nullopt;
    host = listen.substr(1, close - 1);
    port = listen.substr(close + 2);
  } else {
    const size_t colon = listen.rfind(':');
    if (colon == std::string::npos) return std::nullopt;
    host = listen.substr(0, colon);
    port = listen.substr(colon + 1);
  }
  if (host.empty() || port.empty() || port.size() > 5) return std::nullopt;
  if (!std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
    return std::nullopt;
  const int p = std::stoi(port);
  if (p > 65535) return std::nullopt;
  return std::make_pair(host, p);
}

bool is_loopback_host(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

HttpServer::HttpServer(HttpServerOptions options, Dispatch dispatch)
    : options_(std::move(options)), dispatch_(std::move(dispatch)) {
  if (!options_.log) options_.log = [](const std::string& line) { std::cerr << line << '\n'; };
  max_streams_ =
      options_.max_streams > 0 ? options_.max_streams : std::max(1, options_.threads / 2);
  const auto address = split_listen_address(options_.listen);
  if (!address) throw std::runtime_error("--listen " + options_.listen + ": expected host:port");
  host_ = address->first;
  if (options_.tls_cert.empty() != options_.tls_key.empty())
    throw std::runtime_error("TLS needs both a certificate and a key");
  init_civetweb();
  // With TLS, civetweb serves plain HTTP on a loopback port of its own and a TlsFront takes
  // the address asked for (tls_front.hpp says why civetweb's TLS cannot be used).
  const bool v6 = host_.find(':') != std::string::npos;
  const std::string ports =
      tls() ? std::string("127.0.0.1:0")
            : (v6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(address->second);
  const std::string threads = std::to_string(options_.threads);
  const std::string request_timeout = std::to_string(options_.request_timeout.count());
  std::vector<const char*> opts = {
      "listening_ports", ports.c_str(), "num_threads", threads.c_str(),
      // A request's head must arrive whole within this (civetweb counts from when it starts
      // reading the head, so a slowloris trickling bytes gains nothing); it also bounds each
      // wait to read or write after that.
      "request_timeout_ms", request_timeout.c_str(),
      // An idle kept-alive connection holds a worker: half a second, civetweb's default, said
      // here because it matters.
      "enable_keep_alive", "yes", "keep_alive_timeout_ms", "500", "enable_directory_listing", "no",
      // civetweb answers a CORS preflight (OPTIONS with Origin) itself, before any handler,
      // with "Access-Control-Allow-Origin: *" unless told otherwise: CORS is the ApiServer's,
      // only for --allow-origin (api_server.hpp).
      "access_control_allow_origin", "", "access_control_allow_methods", "",
      "access_control_allow_headers", "",
      // civetweb writes an answer's head and body in two send()s; with Nagle on, a client
      // reusing the connection waits for its own delayed ACK (40 ms) before the body comes.
      "tcp_nodelay", "1", nullptr};
  mg_callbacks callbacks{};
  callbacks.log_message = quiet_log;
  char error[256] = "";
  mg_init_data init{};
  init.callbacks = &callbacks;
  init.user_data = this;
  init.configuration_options = opts.data();
  mg_error_data err{};
  err.text = error;
  err.text_buffer_size = sizeof error;
  ctx_ = mg_start2(&init, &err);
  if (ctx_ == nullptr)
    throw std::runtime_error("cannot listen on " + options_.listen +
                             (error[0] != '\0' ? ": " + std::string(error) : ""));
  mg_server_port info[4] = {};
  const int n = mg_get_server_ports(ctx_, 4, info);
  port_ = n > 0 ? info[0].port : address->second;
  if (tls()) {
    try {
      tls_ = std::make_unique<TlsFront>(TlsFrontOptions{host_,
                                                        address->second,
                                                        options_.tls_cert,
                                                        options_.tls_key,
                                                        {},
                                                        port_,
                                                        options_.request_timeout});
    } catch (const std::exception& e) {
      mg_stop(ctx_);
      throw std::runtime_error("cannot listen on " + options_.listen + ": " + e.what());
    }
    port_ = tls_->port();
  }
  mg_set_request_handler(ctx_, "/", &HttpServer::on_request, this);
}

HttpServer::~HttpServer() {
  tls_.reset();  // first: no new connection reaches civetweb while it stops
  if (ctx_ != nullptr) mg_stop(ctx_);
}

std::string HttpServer::url() const {
  const bool v6 = host_.find(':') != std::string::npos;
  return std::string(tls() ? "https" : "http") + "://" + (v6 ? "[" + host_ + "]" : host_) + ":" +
         std::to_string(port_);
}

int HttpServer::on_request(mg_connection* conn, void* self) {
  return static_cast<HttpServer*>(self)->handle(conn);
}

int HttpServer::handle(mg_connection* conn) {
  HttpRequest req;
  HttpResponse r;
  // No exception may cross into civetweb's C code (that ends the process): whatever reading
  // the request or the dispatch function throws is a 500, logged.
  try {
    if (const std::optional<HttpResponse> refused = read_request(conn, req)) {
      send(conn, *refused, true);
      return refused->status;
    }
    r = dispatch_(req);
  } catch (const std::exception& e) {
    options_.log("error: " + req.method + " " + req.path + ": " + e.what());
    r = internal_error();
  } catch (...) {
    options_.log("error: " + req.method + " " + req.path + ": an exception of unknown type");
    r = internal_error();
  }
  if (r.stream) {
    // Streams may take half the workers at most: the rest always answer other requests
    // (/healthz among them). The count is released when the stream function returns, before
    // civetweb closes the connection.
    if (active_streams_.fetch_add(1) >= max_streams_) {
      --active_streams_;
      HttpResponse busy =
          HttpResponse::error(503, "busy",
                              "the server has " + std::to_string(max_streams_) +
                                  " event streams open, its limit; try again later");
      busy.headers.emplace_back("Retry-After", "5");
      send(conn, busy, true);
      return 503;
    }
    struct Release {
      std::atomic<int>& count;
      ~Release() { --count; }
    } release{active_streams_};
    HttpResponse head = r;
    head.headers.emplace_back("Cache-Control", "no-cache");
    send_head(conn, head, -1, true);
    ConnectionWriter writer(conn);
    try {
      r.stream(writer);
    } catch (const std::exception& e) {
      options_.log("error: " + req.method + " " + req.path + ": stream: " + e.what());
    } catch (...) {
      options_.log("error: " + req.method + " " + req.path +
                   ": stream: an exception of unknown type");
    }
    return r.status;
  }
  send(conn, r);
  return r.status;
}

std::optional<HttpResponse> HttpServer::read_request(mg_connection* conn, HttpRequest& req) {
  const mg_request_info* info = mg_get_request_info(conn);
  req.method = info->request_method != nullptr ? info->request_method : "";
  req.path = info->local_uri_raw != nullptr ? info->local_uri_raw
                                            : (info->local_uri != nullptr ? info->local_uri : "");
  req.remote_addr = info->remote_addr;
  for (int i = 0; i < info->num_headers; ++i) {
    std::string name = info->http_headers[i].name;
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    req.headers[name] = info->http_headers[i].value;
  }
  if (info->query_string != nullptr) {
    std::optional<std::map<std::string, std::string>> q = parse_query(info->query_string);
    if (!q) return HttpResponse::error(400, "bad_request", "malformed query string");
    req.query = std::move(*q);
  }
  // The body, bounded.
  const int64_t limit = options_.max_body_bytes;
  const HttpResponse too_large = HttpResponse::error(
      413, "too_large", "request body over " + std::to_string(limit) + " bytes");
  if (info->content_length > limit) return too_large;
  // A whole body within body_timeout: civetweb bounds each read, not their sum, so a client
  // sending a byte at a time would hold the worker for ever. A read that times out ends the
  // body early (mg_read returns 0 as at its end): a body shorter than its Content-Length is
  // refused too, never dispatched cut short.
  const auto deadline = std::chrono::steady_clock::now() + options_.body_timeout;
  const HttpResponse timed_out =
      HttpResponse::error(408, "timeout",
                          "request body not received whole within " +
                              std::to_string(options_.body_timeout.count()) + " ms");
  char buf[16384];
  while (true) {
    const int got = mg_read(conn, buf, sizeof buf);
    if (got <= 0) break;
    req.body.append(buf, static_cast<size_t>(got));
    if (static_cast<int64_t>(req.body.size()) > limit) return too_large;
    if (std::chrono::steady_clock::now() > deadline) return timed_out;
  }
  if (info->content_length >= 0 && static_cast<int64_t>(req.body.size()) < info->content_length)
    return timed_out;
  return std::nullopt;
}

}  // namespace gantry::web
