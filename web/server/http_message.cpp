#include "web/server/http_message.hpp"

#include "web/server/utf8_text.hpp"

namespace gantry::web {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> HttpRequest::header(const std::string& name) const {
  const auto it = headers.find(name);
  if (it == headers.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> HttpRequest::query_value(const std::string& key) const {
  const auto it = query.find(key);
  if (it == query.end()) return std::nullopt;
  return it->second;
}

const std::string& HttpRequest::param(const std::string& name) const {
  static const std::string kEmpty;
  const auto it = params.find(name);
  return it == params.end() ? kEmpty : it->second;
}

HttpResponse HttpResponse::json(int status, const nlohmann::json& body) {
  HttpResponse r;
  r.status = status;
  r.body = json_text(body);  // never throws for bytes that are not UTF-8 (utf8_text.hpp)
  r.body += '\n';
  return r;
}

HttpResponse HttpResponse::error(int status, std::string_view code, std::string_view message) {
  return json(status, {{"error", {{"code", code}, {"message", message}}}});
}

HttpResponse HttpResponse::text(int status, std::string body, std::string content_type) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  r.content_type = std::move(content_type);
  return r;
}

const char* status_reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Unknown";
  }
}

std::optional<std::string> percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    if (i + 2 >= s.size()) return std::nullopt;  // needs two hex digits after the '%'
    const int hi = hex_value(s[i + 1]), lo = hex_value(s[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return std::nullopt;
    out += c;
    i += 2;
  }
  return out;
}

std::optional<std::map<std::string, std::string>> parse_query(std::string_view query) {
  std::map<std::string, std::string> out;
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (item.empty()) continue;
    std::string raw(item);
    for (char& c : raw)
      if (c == '+') c = ' ';
    const size_t eq = raw.find('=');
    std::optional<std::string> key = percent_decode(std::string_view(raw).substr(0, eq));
    std::optional<std::string> value = eq == std::string::npos
                                           ? std::optional<std::string>("")
                                           : percent_decode(std::string_view(raw).substr(eq + 1));
    if (!key || !value) return std::nullopt;
    out[*key] = std::move(*value);
  }
  return out;
}

}  // namespace gantry::web
