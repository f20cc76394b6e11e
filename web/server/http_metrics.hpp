#pragma once
// Counters of the HTTP side for GET /metrics: requests by route pattern, method and status
// code, and their latency as a Prometheus histogram. Route patterns, not paths, are the label
// ("/api/v1/pipelines/{name}"), so the number of series stays bounded whatever clients send.
//
// Thread-safe (a mutex; one short critical section per request).

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace gantry::web {

class HttpMetrics {
 public:
  void record(const std::string& route, const std::string& method, int status,
              std::chrono::nanoseconds took);
  // Prometheus text exposition of gantry_http_requests_total and
  // gantry_http_request_duration_seconds.
  std::string prometheus() const;

  // Upper bounds of the latency buckets, in seconds (then +Inf).
  static constexpr std::array<double, 10> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01,
                                                      0.025,  0.05,  0.1,    0.5,   2.5};

 private:
  struct Latency {
    std::array<uint64_t, kBuckets.size()> le{};  // cumulative counts are computed on output
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::tuple<std::string, std::string, int>, uint64_t> requests_;
  std::map<std::string, Latency> latency_;  // by route
};

// Escapes a Prometheus label value (backslash, double quote, newline).
std::string prometheus_label(const std::string& value);

}  // namespace gantry::web
