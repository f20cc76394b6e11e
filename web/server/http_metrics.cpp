#include "web/server/http_metrics.hpp"

#include <fmt/format.h>

namespace gantry::web {

std::string prometheus_label(const std::string& value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void HttpMetrics::record(const std::string& route, const std::string& method, int status,
                         std::chrono::nanoseconds took) {
  const double s = std::chrono::duration<double>(took).count();
  std::lock_guard lock(mu_);
  ++requests_[{route, method, status}];
  Latency& l = latency_[route];
  ++l.count;
  l.sum += s;
  for (size_t i = 0; i < kBuckets.size(); ++i)
    if (s <= kBuckets[i]) {
      ++l.le[i];
      break;
    }
}

std::string HttpMetrics::prometheus() const {
  std::lock_guard lock(mu_);
  std::string out =
      "# HELP gantry_http_requests_total HTTP requests by route, method and status code.\n"
      "# TYPE gantry_http_requests_total counter\n";
  for (const auto& [key, n] : requests_) {
    const auto& [route, method, code] = key;
    out += fmt::format("gantry_http_requests_total{{route=\"{}\",method=\"{}\",code=\"{}\"}} {}\n",
                       prometheus_label(route), method, code, n);
  }
  out +=
      "# HELP gantry_http_request_duration_seconds Time to answer an HTTP request.\n"
      "# TYPE gantry_http_request_duration_seconds histogram\n";
  for (const auto& [route, l] : latency_) {
    uint64_t cumulative = 0;
    const std::string r = prometheus_label(route);
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      cumulative += l.le[i];
      out +=
          fmt::format("gantry_http_request_duration_seconds_bucket{{route=\"{}\",le=\"{}\"}} {}\n",
                      r, kBuckets[i], cumulative);
    }
    out += fmt::format(
        "gantry_http_request_duration_seconds_bucket{{route=\"{}\",le=\"+Inf\"}} {}\n", r, l.count);
    out += fmt::format("gantry_http_request_duration_seconds_sum{{route=\"{}\"}} {}\n", r, l.sum);
    out +=
        fmt::format("gantry_http_request_duration_seconds_count{{route=\"{}\"}} {}\n", r, l.count);
  }
  return out;
}

}  // namespace gantry::web
