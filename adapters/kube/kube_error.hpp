#pragma once
// What the Kubernetes API server says when a call fails, as a value (KubeStatus) and as the
// exception the client throws (KubeError), plus the transport failure (KubeTransportError).
//
// The API server answers a failed call with a `Status` object (kind Status, apiVersion v1):
// {"status":"Failure","code":409,"reason":"Conflict","message":...,"details":{...}}. Not every
// failure has one: the max-in-flight limiter answers 429 with a plain-text body ("Too many
// requests, please try again later.") and a Retry-After header; proxies answer 502/503 with
// HTML. parse_status() accepts all of these and never throws.
//
// Thread-safety: plain values; the functions are pure.

#include <chrono>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "engine/core/errors.hpp"
#include "engine/core/time.hpp"

namespace gantry::kube {

// The decoded `Status` of a failed (or, for bindings and evictions, successful) call.
struct KubeStatus {
  int code = 0;         // HTTP status; the body's `code` when it has one
  std::string status;   // "Success" or "Failure"; empty when the body was not a Status
  std::string reason;   // "Conflict", "AlreadyExists", "Expired", "NotFound", ...
  std::string message;  // human text (or the plain-text body, trimmed)
  std::string kind;     // details.kind ("pods/binding"), when given
  std::string name;     // details.name, when given
  // Retry-After header if present, else details.retryAfterSeconds; nullopt when neither.
  std::optional<Duration> retry_after;
  bool is_status_object = false;  // the body was a JSON object of kind Status
};

// Decodes a response. `code` is the HTTP status; `retry_after_header` the raw header value
// (empty when absent). A JSON Status body fills every field; anything else keeps `code`, sets
// `message` to the trimmed body (at most 512 bytes) and `reason` from the code (429 →
// "TooManyRequests", 410 → "Expired", ...; see reason_for_code()). A JSON object of another
// kind is read like a Status but its message is capped at 512 bytes too.
KubeStatus parse_status(int code, std::string_view body, std::string_view retry_after_header = {});

// Decodes an already parsed value that should be a Status (as inside a watch ERROR event).
// `fallback_code` is used when the object has no integer `code`; a value that is not an object
// gives a KubeStatus with only that code and its reason_for_code().
KubeStatus status_from_json(const nlohmann::json& object, int fallback_code);

// The reason the API server gives for a status code when it has no Status body.
std::string reason_for_code(int code);

// What the server said, for a person: "404 NotFound: namespaces \"x\" not found" (the code,
// then the reason and the message when there are). KubeError::what() is this after
// "kubernetes API: ".
std::string status_words(const KubeStatus& status);

// What a call failed with, for a person: status_words() of a KubeError, else what() (a
// KubeTransportError's names the request and the URL).
std::string failure_words(const std::exception& e);

// Retry-After as the API server sends it: a non-negative number of seconds. HTTP also allows a
// date; the API server never sends one, so a date (or anything else) is nullopt.
std::optional<Duration> parse_retry_after(std::string_view header);

// A call the API server refused (any non-2xx answer the helper could not turn into a result).
class KubeError : public GantryError {
 public:
  explicit KubeError(KubeStatus status);
  const KubeStatus& status() const { return status_; }
  int code() const { return status_.code; }
  const std::string& reason() const { return status_.reason; }
  const std::optional<Duration>& retry_after() const { return status_.retry_after; }

 private:
  KubeStatus status_;
};

// The call did not get an HTTP answer: connection refused or dropped, TLS verification failed,
// timeout. what() names the URL and libcurl's message.
class KubeTransportError : public GantryError {
 public:
  using GantryError::GantryError;
};

}  // namespace gantry::kube
