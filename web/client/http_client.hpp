#pragma once
// A small blocking HTTP client on libcurl, for the thin command-line clients of `gantry serve`
// (`gantry pipeline apply --server URL`) and for the tests that talk to a real server on
// loopback. One request at a time per client; not thread-safe (make one per thread).
//
// Errors: a transport failure (connection refused, TLS, timeout) throws std::runtime_error
// naming the URL and curl's message; any HTTP status is a normal answer.

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace gantry::web {

struct ClientResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-case names; the last value of a repeat
};

struct ClientOptions {
  std::string token{};    // sent as "Authorization: Bearer <token>" when non-empty
  std::string ca_file{};  // verify an https server against this CA (else the system's)
  std::chrono::milliseconds timeout{30'000};
  // When set: a request in progress is given up (std::runtime_error) once it reads true,
  // within about a second (libcurl's progress callback runs at least once a second), so a
  // thread in a long poll can be told to stop and joined.
  const std::atomic<bool>* abandon = nullptr;
};

class HttpClient {
 public:
  // `base_url` like "http://127.0.0.1:8080" (no trailing slash needed).
  explicit HttpClient(std::string base_url, ClientOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  ClientResponse get(std::string_view path) { return request("GET", path); }
  ClientResponse post(std::string_view path, std::string_view body,
                      std::string_view content_type = "application/json") {
    return request("POST", path, body, content_type);
  }
  ClientResponse del(std::string_view path) { return request("DELETE", path); }
  // Any method; extra headers as "Name: value".
  ClientResponse request(std::string_view method, std::string_view path, std::string_view body = {},
                         std::string_view content_type = {},
                         const std::map<std::string, std::string>& extra_headers = {});

  // A streamed GET (Server-Sent Events): `on_chunk` gets the body as it arrives and returns
  // false to stop. Returns the status (the body is not kept).
  long stream(std::string_view path, const std::function<bool(std::string_view)>& on_chunk,
              const std::map<std::string, std::string>& extra_headers = {});

  const std::string& base_url() const { return base_url_; }

 private:
  std::string base_url_;
  ClientOptions options_;
  void* curl_;  // CURL*
};

}  // namespace gantry::web
