#include "web/client/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <stdexcept>

namespace gantry::web {

namespace {

void init_curl() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

size_t append_body(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

size_t read_header(char* data, size_t size, size_t n, void* out) {
  std::string_view line(data, size * n);
  const size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
      value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n')) value.remove_suffix(1);
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = std::string(value);
  }
  return size * n;
}

struct StreamState {
  const std::function<bool(std::string_view)>* on_chunk;
};

size_t stream_body(char* data, size_t size, size_t n, void* state) {
  const auto* s = static_cast<StreamState*>(state);
  return (*s->on_chunk)(std::string_view(data, size * n)) ? size * n : 0;  // 0 aborts the transfer
}

}  // namespace

HttpClient::HttpClient(std::string base_url, ClientOptions options)
    : base_url_(std::move(base_url)), options_(std::move(options)) {
  init_curl();
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
  curl_ = curl_easy_init();
  if (curl_ == nullptr) throw std::runtime_error("curl_easy_init failed");
}

HttpClient::~HttpClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

namespace {

int abandon_when_set(void* flag, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<const std::atomic<bool>*>(flag)->load() ? 1 : 0;
}

curl_slist* common_setup(CURL* curl, const std::string& url, const ClientOptions& options,
                         std::string_view method, const std::map<std::string, std::string>& extra,
                         std::string_view content_type) {
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, std::string(method).c_str());
  if (!options.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
  if (options.abandon != nullptr) {
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, abandon_when_set);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(options.abandon));
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  }
  curl_slist* headers = nullptr;
  if (!options.token.empty())
    headers = curl_slist_append(headers, ("Authorization: Bearer " + options.token).c_str());
  if (!content_type.empty())
    headers = curl_slist_append(headers, ("Content-Type: " + std::string(content_type)).c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  for (const auto& [k, v] : extra) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  return headers;
}

}  // namespace

ClientResponse HttpClient::request(std::string_view method, std::string_view path,
                                   std::string_view body, std::string_view content_type,
                                   const std::map<std::string, std::string>& extra_headers) {
  auto* curl = static_cast<CURL*>(curl_);
  const std::string url = base_url_ + std::string(path);
  curl_slist* headers = common_setup(curl, url, options_, method, extra_headers, content_type);
  // CUSTOMREQUEST "GET" with a method-specific curl path: a body is only set when given.
  const std::string body_copy(body);
  if (!body.empty() || method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body_copy.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body_copy.size()));
  }
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.timeout.count()));
  ClientResponse r;
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, read_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r.headers);
  const CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK)
    throw std::runtime_error(std::string(method) + " " + url + ": " + curl_easy_strerror(rc));
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
  return r;
}

long HttpClient::stream(std::string_view path,
                        const std::function<bool(std::string_view)>& on_chunk,
                        const std::map<std::string, std::string>& extra_headers) {
  auto* curl = static_cast<CURL*>(curl_);
  const std::string url = base_url_ + std::string(path);
  curl_slist* headers = common_setup(curl, url, options_, "GET", extra_headers, {});
  StreamState state{&on_chunk};
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, stream_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &state);
  const CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR)
    throw std::runtime_error("GET " + url + ": " + curl_easy_strerror(rc));
  return status;
}

}  // namespace gantry::web
