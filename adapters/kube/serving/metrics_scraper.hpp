#pragma once
// Where the live world reads a predictor's request metrics (serving_metric_names.hpp): the
// serving pods' own Prometheus endpoints, or one endpoint for many pods (kubelet-sim's). A scrape
// is a blocking HTTP GET: LiveServing calls scrape() on an API worker, never on the event loop.
//
//   PodEndpointScraper   GET http://<pod IP>:<port><path> of every ready pod; a pod's samples
//                        are its own whatever their labels
//   EndpointScraper      GET one URL; the samples labelled namespace, service and predictor of
//                        the request, each pod by its `pod` label (kubelet-sim's activator too)
//
// HTTP goes through libcurl (http_get(); plain http and https with the system's CAs, no
// redirects, the body cut at 16 MiB, a timeout), as the Kubernetes client does; a test injects
// an HttpGet instead. An answer that is not 200 or not valid text exposition
// (prometheus_text.hpp) is a failed scrape of that target, with the reason in `errors`.
//
// Thread-safety: scrape() may be called from several threads at once (the scrapers keep no
// state between calls).

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "adapters/kube/serving/serving_metric_names.hpp"
#include "engine/core/time.hpp"

namespace gantry::kube {

struct HttpAnswer {
  int status = 0;  // 0: no answer (see error)
  std::string body;
  std::string error;  // why there was no answer, or why the body was cut
};
using HttpGet = std::function<HttpAnswer(const std::string& url)>;

// One GET with libcurl: `timeout` for the whole request; a body longer than `max_bytes` is an
// error. Never throws.
HttpAnswer http_get(const std::string& url, Duration timeout = seconds(5),
                    size_t max_bytes = size_t{16} << 20);
// http_get with its defaults, as an HttpGet.
HttpGet curl_http_get(Duration timeout = seconds(5));

struct ScrapeTarget {
  std::string pod;     // name
  std::string pod_ip;  // status.podIP
};

struct ScrapeRequest {
  Time at;  // the tick the scrape is for
  std::string namespace_name;
  std::string service;
  std::string predictor;
  std::vector<ScrapeTarget> pods;  // the predictor's ready pods
};

struct ScrapeResult {
  bool ok = false;  // false: nothing could be read (the round is skipped)
  std::map<std::string, PodCounters> pods;
  std::set<std::string> failed;     // pods whose own scrape failed
  std::vector<std::string> errors;  // what went wrong, for logs and stats
};

class MetricsScraper {
 public:
  virtual ~MetricsScraper() = default;
  // Blocking; never throws.
  virtual ScrapeResult scrape(const ScrapeRequest& request) = 0;
};

class PodEndpointScraper final : public MetricsScraper {
 public:
  explicit PodEndpointScraper(int port = 9090, std::string path = "/metrics",
                              HttpGet get = curl_http_get());
  // ok when at least one pod answered, or there was no pod to ask.
  ScrapeResult scrape(const ScrapeRequest& request) override;

 private:
  int port_;
  std::string path_;
  HttpGet get_;
};

class EndpointScraper final : public MetricsScraper {
 public:
  explicit EndpointScraper(std::string url, HttpGet get = curl_http_get());
  // ok when the endpoint answered with valid text.
  ScrapeResult scrape(const ScrapeRequest& request) override;

 private:
  std::string url_;
  HttpGet get_;
};

}  // namespace gantry::kube
