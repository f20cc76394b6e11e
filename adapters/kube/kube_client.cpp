#include "adapters/kube/kube_client.hpp"

#include <curl/curl.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "adapters/kube/trim.hpp"

namespace gantry::kube {

namespace {

void init_curl() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
      throw std::runtime_error("libcurl cannot be initialised");
  });
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

size_t header_callback(char* data, size_t size, size_t count, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  const std::string line(data, size * count);
  const size_t colon = line.find(':');
  if (line.rfind("HTTP/", 0) == 0) {
    headers->clear();  // a new response (after a 100 Continue or a redirect)
  } else if (colon != std::string::npos) {
    (*headers)[lower(trim(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return size * count;
}

// The body of one answer, abandoned once it would pass `max_bytes`.
struct BodySink {
  std::string* out;
  size_t max_bytes;
  bool too_large = false;
};

size_t body_callback(char* data, size_t size, size_t count, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  const size_t n = size * count;
  if (n > sink->max_bytes - std::min(sink->max_bytes, sink->out->size())) {
    sink->too_large = true;
    return 0;  // aborts the transfer (CURLE_WRITE_ERROR)
  }
  sink->out->append(data, n);
  return n;
}

// "64 MiB" for a whole number of MiB, else bytes.
std::string size_text(int64_t bytes) {
  if (bytes > 0 && bytes % (int64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

bool is_2xx(int status) { return status >= 200 && status < 300; }

nlohmann::json parse_json_body(const KubeResponse& r) {
  if (r.body.empty()) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    KubeStatus s;
    s.code = r.status;
    s.reason = "InvalidResponse";
    s.message = "the answer is not JSON";
    throw KubeError(std::move(s));
  }
  return j;
}

KubeStatus status_of(const KubeResponse& r) {
  const auto it = r.headers.find("retry-after");
  return parse_status(r.status, r.body, it == r.headers.end() ? "" : it->second);
}

nlohmann::json expect_2xx(const KubeResponse& r) {
  if (!is_2xx(r.status)) throw KubeError(status_of(r));
  return parse_json_body(r);
}

}  // namespace

const char* content_type_of(PatchType type) {
  switch (type) {
    case PatchType::kMerge:
      return "application/merge-patch+json";
    case PatchType::kStrategicMerge:
      return "application/strategic-merge-patch+json";
    case PatchType::kJson:
      return "application/json-patch+json";
  }
  return "application/merge-patch+json";
}

const char* to_string(WriteOutcome outcome) {
  switch (outcome) {
    case WriteOutcome::kOk:
      return "ok";
    case WriteOutcome::kAlreadyExists:
      return "already-exists";
    case WriteOutcome::kConflict:
      return "conflict";
    case WriteOutcome::kNotFound:
      return "not-found";
    case WriteOutcome::kTooManyRequests:
      return "too-many-requests";
  }
  return "?";
}

std::string describe(const WriteResult& r) {
  std::string out = to_string(r.outcome);
  if (!r.status.message.empty()) out += ": " + r.status.message;
  return out;
}

const char* to_string(WatchEnd end) {
  switch (end) {
    case WatchEnd::kCancelled:
      return "cancelled";
    case WatchEnd::kStopped:
      return "stopped";
    case WatchEnd::kClosed:
      return "closed";
    case WatchEnd::kHttpError:
      return "http-error";
    case WatchEnd::kTransportError:
      return "transport-error";
    case WatchEnd::kBadEvent:
      return "bad-event";
  }
  return "?";
}

std::string query_escape(std::string_view value) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

// ---- WatchCanceller ----

void WatchCanceller::cancel() {
  cancelled_.store(true);
  std::lock_guard lock(mutex_);
  if (multi_ != nullptr) curl_multi_wakeup(static_cast<CURLM*>(multi_));
}

void WatchCanceller::reset() { cancelled_.store(false); }

void WatchCanceller::attach(void* multi) {
  std::lock_guard lock(mutex_);
  multi_ = multi;
}

// ---- KubeClient ----

namespace {
const Clock& pick_clock(const KubeClientOptions& o, std::unique_ptr<Clock>& own) {
  if (o.clock != nullptr) return *o.clock;
  own = std::make_unique<WallClock>();
  return *own;
}
}  // namespace

KubeClient::KubeClient(KubeConfig config, KubeClientOptions options)
    : config_(std::move(config)),
      options_(std::move(options)),
      clock_(&pick_clock(options_, own_clock_)),
      sleeper_(options_.sleeper),
      limiter_(options_.qps, options_.burst, *clock_) {
  init_curl();
  if (sleeper_ == nullptr) {
    own_sleeper_ = std::make_unique<InterruptibleSleeper>();
    sleeper_ = own_sleeper_.get();
  }
  token_ = config_.token;
}

KubeClient::~KubeClient() {
  for (void* h : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* KubeClient::acquire_handle() {
  {
    std::lock_guard lock(pool_mutex_);
    if (!idle_handles_.empty()) {
      void* h = idle_handles_.back();
      idle_handles_.pop_back();
      curl_easy_reset(static_cast<CURL*>(h));  // keeps the connection cache
      return h;
    }
  }
  CURL* h = curl_easy_init();
  if (h == nullptr) throw KubeTransportError("libcurl: cannot create a handle");
  return h;
}

void KubeClient::release_handle(void* handle) {
  std::lock_guard lock(pool_mutex_);
  idle_handles_.push_back(handle);
}

std::string KubeClient::bearer_token() {
  std::lock_guard lock(token_mutex_);
  if (config_.token_file.empty()) return token_;
  // Re-read when the file changed (a projected service-account token is rotated in place).
  struct stat st {};
  if (::stat(config_.token_file.c_str(), &st) == 0) {
    const int64_t mtime =
        static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
    const int64_t size = static_cast<int64_t>(st.st_size);
    if (mtime != token_mtime_ || size != token_size_) {
      std::ifstream in(config_.token_file, std::ios::binary);
      std::ostringstream text;
      text << in.rdbuf();
      if (in) {
        token_ = trim(text.str());
        token_mtime_ = mtime;
        token_size_ = size;
      }
    }
  }
  return token_;  // the last good token when the file is briefly missing during a rotation
}

void* KubeClient::build_headers(std::string_view content_type, bool watch) {
  curl_slist* list = nullptr;
  list = curl_slist_append(list, "Accept: application/json");
  if (!content_type.empty())
    list = curl_slist_append(list, ("Content-Type: " + std::string(content_type)).c_str());
  const std::string token = bearer_token();
  if (!token.empty()) list = curl_slist_append(list, ("Authorization: Bearer " + token).c_str());
  list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
  if (watch) list = curl_slist_append(list, "Accept-Encoding: identity");
  return list;
}

void KubeClient::configure(void* handle, std::string_view method, const std::string& url,
                           std::string_view body, void* header_list) {
  CURL* h = static_cast<CURL*>(handle);
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(header_list));
  curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.micros() / 1000));
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  const std::string m(method);
  if (m == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, m.c_str());
    if (!body.empty() || m == "POST" || m == "PUT" || m == "PATCH") {
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.data());
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
  }
  // TLS: verify against the configured CA (in memory), unless the kubeconfig says not to.
  if (!config_.ca_pem.empty()) {
    curl_blob ca{const_cast<char*>(config_.ca_pem.data()), config_.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
  }
  const long verify = config_.insecure_skip_tls_verify ? 0L : 1L;
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, verify);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, verify * 2);
  if (!config_.client_cert_pem.empty()) {
    curl_blob cert{const_cast<char*>(config_.client_cert_pem.data()),
                   config_.client_cert_pem.size(), CURL_BLOB_COPY};
    curl_blob key{const_cast<char*>(config_.client_key_pem.data()), config_.client_key_pem.size(),
                  CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
    curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
    curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
    curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
  }
}

bool KubeClient::wait(Duration d) {
  if (d <= Duration(0)) return true;
  return sleeper_->sleep_for(d);
}

KubeResponse KubeClient::perform_once(std::string_view method, std::string_view path,
                                      std::string_view body, std::string_view content_type) {
  if (!wait(limiter_.reserve())) throw KubeTransportError("interrupted");
  const std::string url = config_.server + std::string(path);
  void* handle = acquire_handle();
  CURL* h = static_cast<CURL*>(handle);
  auto* headers = static_cast<curl_slist*>(build_headers(content_type, false));
  configure(handle, method, url, body, headers);
  KubeResponse r;
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(options_.request_timeout.micros() / 1000));
  const auto max_bytes = static_cast<size_t>(std::max<int64_t>(0, options_.max_response_bytes));
  BodySink sink{&r.body, max_bytes};
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &body_callback);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  // An answer that announces its length fails before its body is read.
  curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(max_bytes));
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &header_callback);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &r.headers);
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  requests_sent_.fetch_add(1);
  const CURLcode code = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
  curl_slist_free_all(headers);
  if (code != CURLE_OK) {
    curl_easy_cleanup(h);  // a broken connection is not worth keeping
    if (sink.too_large || code == CURLE_FILESIZE_EXCEEDED)
      throw KubeResponseTooLarge(std::string(method) + " " + url +
                                 ": the answer is longer than the client's limit of " +
                                 size_text(options_.max_response_bytes) +
                                 " (KubeClientOptions::max_response_bytes); abandoned");
    throw KubeTransportError(std::string(method) + " " + url + ": " +
                             (error[0] != '\0' ? error : curl_easy_strerror(code)));
  }
  release_handle(handle);
  r.status = static_cast<int>(status);
  return r;
}

KubeResponse KubeClient::request(std::string_view method, std::string_view path,
                                 std::string_view body, std::string_view content_type) {
  for (int attempt = 0;; ++attempt) {
    KubeResponse r = perform_once(method, path, body, content_type);
    if ((r.status != 429 && r.status != 503) || attempt >= options_.max_retries) return r;
    const auto header = r.headers.find("retry-after");
    if (header == r.headers.end()) return r;
    const auto after = parse_retry_after(header->second);
    if (!after) return r;
    retries_.fetch_add(1);
    if (!wait(std::min(*after, options_.max_retry_wait))) throw KubeTransportError("interrupted");
  }
}

nlohmann::json KubeClient::get(std::string_view path) { return expect_2xx(request("GET", path)); }

nlohmann::json KubeClient::post(std::string_view path, const nlohmann::json& body) {
  return expect_2xx(request("POST", path, body.dump(), "application/json"));
}

nlohmann::json KubeClient::put(std::string_view path, const nlohmann::json& body) {
  return expect_2xx(request("PUT", path, body.dump(), "application/json"));
}

nlohmann::json KubeClient::patch(std::string_view path, const nlohmann::json& body,
                                 PatchType type) {
  return expect_2xx(request("PATCH", path, body.dump(), content_type_of(type)));
}

WriteResult KubeClient::outcome_of(const KubeResponse& r, bool creating) {
  WriteResult out;
  if (is_2xx(r.status)) {
    out.object = parse_json_body(r);
    return out;
  }
  out.status = status_of(r);
  if (r.status == 409 && creating && out.status.reason == "AlreadyExists") {
    out.outcome = WriteOutcome::kAlreadyExists;
  } else if (r.status == 409 && !creating) {
    out.outcome = WriteOutcome::kConflict;
  } else if (r.status == 404 && !creating) {
    out.outcome = WriteOutcome::kNotFound;
  } else {
    throw KubeError(out.status);
  }
  out.object = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (out.object.is_discarded()) out.object = nullptr;
  return out;
}

WriteResult KubeClient::create(std::string_view collection_path, const nlohmann::json& object) {
  return outcome_of(request("POST", collection_path, object.dump(), "application/json"), true);
}

WriteResult KubeClient::update(std::string_view object_path, const nlohmann::json& object) {
  return outcome_of(request("PUT", object_path, object.dump(), "application/json"), false);
}

WriteResult KubeClient::remove(std::string_view object_path, const DeleteOptions& options) {
  return outcome_of(
      request("DELETE", object_path, delete_options_body(options).dump(), "application/json"),
      false);
}

WriteResult KubeClient::bind(const std::string& ns, const std::string& pod, const std::string& node,
                             const std::string& pod_uid,
                             const std::map<std::string, std::string>& annotations) {
  const std::string path = "/api/v1/namespaces/" + ns + "/pods/" + pod + "/binding";
  return outcome_of(request("POST", path, binding_body(ns, pod, node, pod_uid, annotations).dump(),
                            "application/json"),
                    false);
}

WriteResult KubeClient::evict(const std::string& ns, const std::string& pod,
                              const std::string& pod_uid) {
  const std::string path = "/api/v1/namespaces/" + ns + "/pods/" + pod + "/eviction";
  const KubeResponse r =
      perform_once("POST", path, eviction_body(ns, pod, pod_uid).dump(), "application/json");
  if (r.status == 429) {
    WriteResult out;
    out.outcome = WriteOutcome::kTooManyRequests;
    out.status = status_of(r);
    out.object = nlohmann::json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    if (out.object.is_discarded()) out.object = nullptr;
    return out;
  }
  return outcome_of(r, false);
}

WriteResult KubeClient::create_event(const EventSpec& spec) {
  const nlohmann::json body = event_body(spec);
  const std::string ns = body["metadata"]["namespace"].get<std::string>();
  return create("/apis/events.k8s.io/v1/namespaces/" + ns + "/events", body);
}

// ---- watch ----

namespace {

struct WatchState {
  const std::function<bool(WatchEvent&)>* on_event = nullptr;
  CURL* handle = nullptr;
  int status = 0;  // known after the first body byte
  std::string error_body;
  LineSplitter lines;
  bool stopped = false;
  bool bad_event = false;
  std::string detail;
  int64_t events = 0;
};

size_t watch_body_callback(char* data, size_t size, size_t count, void* user) {
  auto* s = static_cast<WatchState*>(user);
  const size_t n = size * count;
  if (s->status == 0) {
    long status = 0;
    curl_easy_getinfo(s->handle, CURLINFO_RESPONSE_CODE, &status);
    s->status = static_cast<int>(status);
  }
  if (s->status != 200) {
    if (s->error_body.size() < (1u << 20)) s->error_body.append(data, n);
    return n;
  }
  const bool ok = s->lines.feed(std::string_view(data, n), [&](std::string_view line) {
    std::string why;
    auto event = parse_watch_event(line, &why);
    if (!event) {
      s->bad_event = true;
      s->detail = why;
      return false;
    }
    ++s->events;
    if (!(*s->on_event)(*event)) {
      s->stopped = true;
      return false;
    }
    return true;
  });
  if (!ok && !s->stopped && !s->bad_event) {
    s->bad_event = true;
    s->detail = "watch event line too long";
  }
  return ok ? n : 0;  // 0 aborts the transfer
}

}  // namespace

WatchResult KubeClient::watch(std::string_view path,
                              const std::function<bool(WatchEvent&)>& on_event,
                              WatchCanceller* canceller) {
  WatchResult result;
  if (canceller != nullptr && canceller->cancelled()) {
    result.end = WatchEnd::kCancelled;
    return result;
  }
  if (!wait(limiter_.reserve())) {
    result.end = WatchEnd::kCancelled;
    return result;
  }
  const std::string url = config_.server + std::string(path);
  CURL* h = curl_easy_init();
  CURLM* multi = curl_multi_init();
  if (h == nullptr || multi == nullptr) {
    if (h != nullptr) curl_easy_cleanup(h);
    if (multi != nullptr) curl_multi_cleanup(multi);
    result.end = WatchEnd::kTransportError;
    result.detail = "libcurl: cannot create a handle";
    return result;
  }
  auto* headers = static_cast<curl_slist*>(build_headers({}, true));
  configure(h, "GET", url, {}, headers);
  WatchState state;
  state.on_event = &on_event;
  state.handle = h;
  std::map<std::string, std::string> response_headers;
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &watch_body_callback);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &header_callback);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &response_headers);
  char error[CURL_ERROR_SIZE] = "";
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
  curl_multi_add_handle(multi, h);
  if (canceller != nullptr) canceller->attach(multi);
  requests_sent_.fetch_add(1);

  CURLcode done = CURLE_OK;
  bool finished = false;
  while (true) {
    if (canceller != nullptr && canceller->cancelled()) break;
    int running = 0;
    if (curl_multi_perform(multi, &running) != CURLM_OK) break;
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg == CURLMSG_DONE) {
        done = msg->data.result;
        finished = true;
      }
    }
    if (finished || running == 0) break;
    // Wakes on data, on cancel() (curl_multi_wakeup) or after a second at the latest.
    curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  if (canceller != nullptr) canceller->attach(nullptr);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_multi_remove_handle(multi, h);
  curl_easy_cleanup(h);
  curl_multi_cleanup(multi);
  curl_slist_free_all(headers);

  result.events = state.events;
  if (canceller != nullptr && canceller->cancelled() && !state.stopped) {
    result.end = WatchEnd::kCancelled;
  } else if (state.stopped) {
    result.end = WatchEnd::kStopped;
  } else if (state.bad_event) {
    result.end = WatchEnd::kBadEvent;
    result.detail = state.detail;
  } else if (status != 0 && status != 200) {
    result.end = WatchEnd::kHttpError;
    const auto it = response_headers.find("retry-after");
    result.status = parse_status(static_cast<int>(status), state.error_body,
                                 it == response_headers.end() ? "" : it->second);
  } else if (!finished || done != CURLE_OK) {
    result.end = WatchEnd::kTransportError;
    result.detail = url + ": " + (error[0] != '\0' ? error : curl_easy_strerror(done));
  } else {
    result.end = WatchEnd::kClosed;
  }
  return result;
}

}  // namespace gantry::kube
