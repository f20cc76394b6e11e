#include "adapters/kube/kube_error.hpp"

#include <cctype>

namespace gantry::kube {

namespace {

// Bytes kept of a message that did not come from a Status object.
constexpr size_t kMaxForeignMessage = 512;

std::string trimmed(std::string_view s, size_t max_bytes) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.size() > max_bytes) s = s.substr(0, max_bytes);
  return std::string(s);
}

std::string string_field(const nlohmann::json& o, const char* key) {
  const auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string reason_for_code(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return code >= 500 ? "InternalError" : (code >= 400 ? "BadRequest" : "");
  }
}

std::optional<Duration> parse_retry_after(std::string_view header) {
  std::string v = trimmed(header, 32);
  if (v.empty() || v.size() > 9) return std::nullopt;  // at most 999,999,999 s
  int64_t seconds_value = 0;
  for (char c : v) {
    if (c < '0' || c > '9') return std::nullopt;
    seconds_value = seconds_value * 10 + (c - '0');
  }
  return seconds(seconds_value);
}

KubeStatus status_from_json(const nlohmann::json& o, int fallback_code) {
  KubeStatus s;
  s.code = fallback_code;
  if (!o.is_object()) {
    s.reason = reason_for_code(fallback_code);
    return s;
  }
  s.is_status_object = string_field(o, "kind") == "Status";
  if (const auto c = o.find("code"); c != o.end() && c->is_number_integer()) {
    const int64_t v = c->get<int64_t>();
    if (v >= 0 && v <= 999) s.code = static_cast<int>(v);
  }
  s.status = string_field(o, "status");
  s.reason = string_field(o, "reason");
  s.message = string_field(o, "message");
  if (const auto d = o.find("details"); d != o.end() && d->is_object()) {
    s.kind = string_field(*d, "kind");
    s.name = string_field(*d, "name");
    if (const auto r = d->find("retryAfterSeconds"); r != d->end() && r->is_number_integer()) {
      const int64_t v = r->get<int64_t>();
      if (v >= 0 && v <= 999'999'999) s.retry_after = seconds(v);
    }
  }
  if (s.reason.empty()) s.reason = reason_for_code(s.code);
  return s;
}

KubeStatus parse_status(int code, std::string_view body, std::string_view retry_after_header) {
  KubeStatus s;
  nlohmann::json parsed = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object()) {
    s = status_from_json(parsed, code);
    // The HTTP status is what happened; a body claiming another code does not override it,
    // nor does it choose the reason when it gives none.
    if (s.code != code && string_field(parsed, "reason").empty()) s.reason = reason_for_code(code);
    s.code = code;
    // A proxy's or webhook's own JSON is not the API server's Status: its message is text we
    // did not choose, capped like any other body that is not a Status.
    if (!s.is_status_object && s.message.size() > kMaxForeignMessage)
      s.message.resize(kMaxForeignMessage);
  } else {
    s.code = code;
    s.reason = reason_for_code(code);
    s.message = trimmed(body, kMaxForeignMessage);
  }
  if (auto header = parse_retry_after(retry_after_header)) s.retry_after = header;
  return s;
}

std::string status_words(const KubeStatus& s) {
  std::string out = std::to_string(s.code);
  if (!s.reason.empty()) out += " " + s.reason;
  if (!s.message.empty()) out += ": " + s.message;
  return out;
}

std::string failure_words(const std::exception& e) {
  if (const auto* refused = dynamic_cast<const KubeError*>(&e))
    return status_words(refused->status());
  return e.what();
}

KubeError::KubeError(KubeStatus status)
    : GantryError("kubernetes API: " + status_words(status)), status_(std::move(status)) {}

}  // namespace gantry::kube
