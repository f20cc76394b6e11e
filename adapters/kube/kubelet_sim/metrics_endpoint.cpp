#include "adapters/kube/kubelet_sim/metrics_endpoint.hpp"

#include <civetweb.h>

#include <cstring>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace gantry::kube {

namespace {

int quiet_log(const mg_connection*, const char*) { return 1; }

void answer(mg_connection* conn, int status, const char* reason, const std::string& type,
            const std::string& body) {
  const std::string head =
      "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: " + type +
      "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n";
  mg_write(conn, head.data(), head.size());
  if (!body.empty()) mg_write(conn, body.data(), body.size());
}

}  // namespace

MetricsEndpoint::MetricsEndpoint(const std::string& listen, std::function<std::string()> render,
                                 int threads)
    : render_(std::move(render)) {
  static std::once_flag once;
  std::call_once(once, [] { mg_init_library(0); });
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0)
    throw std::runtime_error("metrics endpoint " + listen + ": expected host:port");
  host_ = listen.substr(0, colon);
  const std::string thread_count = std::to_string(threads);
  std::vector<const char*> opts = {"listening_ports",
                                   listen.c_str(),
                                   "num_threads",
                                   thread_count.c_str(),
                                   "enable_keep_alive",
                                   "no",
                                   "enable_directory_listing",
                                   "no",
                                   nullptr};
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
    throw std::runtime_error("metrics endpoint: cannot listen on " + listen +
                             (error[0] != '\0' ? ": " + std::string(error) : ""));
  mg_server_port info[4] = {};
  const int n = mg_get_server_ports(ctx_, 4, info);
  port_ = n > 0 ? info[0].port : 0;
  mg_set_request_handler(ctx_, "/", &MetricsEndpoint::on_request, this);
}

MetricsEndpoint::~MetricsEndpoint() {
  if (ctx_ != nullptr) mg_stop(ctx_);
}

std::string MetricsEndpoint::url() const {
  return "http://" + host_ + ":" + std::to_string(port_) + "/metrics";
}

int64_t MetricsEndpoint::requests() const { return requests_.load(); }

int MetricsEndpoint::on_request(mg_connection* conn, void* self) {
  auto* e = static_cast<MetricsEndpoint*>(self);
  const mg_request_info* info = mg_get_request_info(conn);
  e->requests_.fetch_add(1);
  if (std::strcmp(info->local_uri, "/metrics") != 0) {
    answer(conn, 404, "Not Found", "text/plain", "not found\n");
    return 404;
  }
  if (std::strcmp(info->request_method, "GET") != 0) {
    answer(conn, 405, "Method Not Allowed", "text/plain", "method not allowed\n");
    return 405;
  }
  answer(conn, 200, "OK", "text/plain; version=0.0.4; charset=utf-8", e->render_());
  return 200;
}

}  // namespace gantry::kube
