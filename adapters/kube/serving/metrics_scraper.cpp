#include "adapters/kube/serving/metrics_scraper.hpp"

#include <curl/curl.h>

#include <mutex>

#include "engine/core/errors.hpp"

namespace gantry::kube {

namespace {

struct Body {
  std::string* out;
  size_t max_bytes;
  bool too_long = false;
};

size_t write_body(char* data, size_t size, size_t count, void* user) {
  auto* b = static_cast<Body*>(user);
  const size_t n = size * count;
  if (b->out->size() + n > b->max_bytes) {
    b->too_long = true;
    return 0;  // aborts the transfer
  }
  b->out->append(data, n);
  return n;
}

bool init_curl() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; });
  return ok;
}

// Parses an answer into counters; false (with the reason in errors) when it is not usable.
bool read_answer(const HttpAnswer& a, const std::string& url,
                 const std::map<std::string, std::string>& match,
                 std::map<std::string, PodCounters>* counters, std::vector<std::string>* errors) {
  if (a.status == 0) {
    errors->push_back("GET " + url + ": " + a.error);
    return false;
  }
  if (a.status != 200) {
    errors->push_back("GET " + url + ": HTTP " + std::to_string(a.status));
    return false;
  }
  try {
    *counters = serving_counters(parse_prometheus_text(a.body, url), match);
  } catch (const InputError& e) {
    errors->push_back(e.what());
    return false;
  }
  return true;
}

}  // namespace

HttpAnswer http_get(const std::string& url, Duration timeout, size_t max_bytes) {
  HttpAnswer out;
  if (!init_curl()) {
    out.error = "libcurl cannot be initialised";
    return out;
  }
  CURL* h = curl_easy_init();
  if (h == nullptr) {
    out.error = "libcurl: cannot create a handle";
    return out;
  }
  Body body{&out.body, max_bytes};
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.micros() / 1000));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout.micros() / 1000));
  curl_easy_setopt(h, CURLOPT_USERAGENT, "gantry/0.1");
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &write_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  curl_slist* headers = curl_slist_append(nullptr, "Accept: text/plain;version=0.0.4");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  const CURLcode code = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_cleanup(h);
  curl_slist_free_all(headers);
  if (body.too_long) {
    out.body.clear();
    out.error = "the answer is longer than " + std::to_string(max_bytes) + " bytes";
    return out;
  }
  if (code != CURLE_OK) {
    out.body.clear();
    out.error = error[0] != '\0' ? error : curl_easy_strerror(code);
    return out;
  }
  out.status = static_cast<int>(status);
  return out;
}

HttpGet curl_http_get(Duration timeout) {
  return [timeout](const std::string& url) { return http_get(url, timeout); };
}

PodEndpointScraper::PodEndpointScraper(int port, std::string path, HttpGet get)
    : port_(port), path_(std::move(path)), get_(std::move(get)) {}

ScrapeResult PodEndpointScraper::scrape(const ScrapeRequest& request) {
  ScrapeResult out;
  out.ok = request.pods.empty();
  for (const ScrapeTarget& t : request.pods) {
    if (t.pod_ip.empty()) {
      out.failed.insert(t.pod);
      out.errors.push_back("pod " + t.pod + " has no IP yet");
      continue;
    }
    // An IPv6 address goes in brackets.
    const std::string host =
        t.pod_ip.find(':') != std::string::npos ? "[" + t.pod_ip + "]" : t.pod_ip;
    const std::string url = "http://" + host + ":" + std::to_string(port_) + path_;
    std::map<std::string, PodCounters> counters;
    if (!read_answer(get_(url), url, {}, &counters, &out.errors)) {
      out.failed.insert(t.pod);
      continue;
    }
    // Whatever the samples' own labels say, they are this pod's.
    PodCounters sum;
    for (const auto& [label, c] : counters) {
      sum.requests += c.requests;
      sum.concurrency_seconds += c.concurrency_seconds;
      sum.gpu_busy_seconds += c.gpu_busy_seconds;
      sum.slots_busy_seconds += c.slots_busy_seconds;
    }
    out.pods[t.pod] = sum;
    out.ok = true;
  }
  return out;
}

EndpointScraper::EndpointScraper(std::string url, HttpGet get)
    : url_(std::move(url)), get_(std::move(get)) {}

ScrapeResult EndpointScraper::scrape(const ScrapeRequest& request) {
  ScrapeResult out;
  const std::map<std::string, std::string> match = {{"namespace", request.namespace_name},
                                                    {"service", request.service},
                                                    {"predictor", request.predictor}};
  std::map<std::string, PodCounters> counters;
  if (!read_answer(get_(url_), url_, match, &counters, &out.errors)) return out;
  counters.erase("");  // a sample without a pod is no pod's
  out.pods = std::move(counters);
  out.ok = true;
  return out;
}

}  // namespace gantry::kube
