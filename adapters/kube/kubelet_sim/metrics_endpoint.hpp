#pragma once
// A Prometheus endpoint on civetweb: GET /metrics answers 200 with `render()` as
// `text/plain; version=0.0.4` (the text exposition format); any other path 404, any other
// method 405. kubelet-sim serves its simulated serving pods' counters here (serving_load.hpp),
// one endpoint for all of them, each series labelled with its pod.
//
// Errors: the constructor throws std::runtime_error naming the address when it cannot listen.
// Threads: civetweb's; `render` is called on them, concurrently (ServingLoad locks inside).
// The destructor waits for requests in progress.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

struct mg_context;
struct mg_connection;

namespace gantry::kube {

class MetricsEndpoint {
 public:
  // `listen`: "127.0.0.1:9400"; port 0 picks a free one.
  MetricsEndpoint(const std::string& listen, std::function<std::string()> render, int threads = 4);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:PORT/metrics"
  std::string url() const;
  int64_t requests() const;

 private:
  static int on_request(mg_connection* conn, void* self);

  std::function<std::string()> render_;
  std::string host_;
  mg_context* ctx_ = nullptr;
  int port_ = 0;
  std::atomic<int64_t> requests_{0};
};

}  // namespace gantry::kube
