#pragma once
// The request and response of one HTTP exchange as the API handlers see them: plain values,
// no civetweb types, so handlers and the router are tested without a socket.
//
// Header names are stored lower-case (HTTP header names are case-insensitive). Query values
// and path parameters are percent-decoded; the body is raw bytes.

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gantry::web {

struct HttpRequest {
  std::string method;                          // "GET", "POST", ...
  std::string path;                            // percent-decoded, without the query
  std::map<std::string, std::string> query;    // ?a=1&b=x%20y -> {a: 1, b: "x y"}
  std::map<std::string, std::string> headers;  // lower-case names
  std::map<std::string, std::string> params;   // from the route pattern's {name} segments
  std::string body;
  std::string remote_addr;
  // Set by ApiServer once the token is checked: its role (token_store.hpp) and name.
  std::string role;
  std::string token_name;

  // The header's value, or nullopt. `name` must be lower-case.
  std::optional<std::string> header(const std::string& name) const;
  std::optional<std::string> query_value(const std::string& key) const;
  const std::string& param(const std::string& name) const;  // empty when absent
};

// Writes the chunks of a streamed answer (Server-Sent Events). write() returns false once the
// client is gone; the stream function should then return.
class StreamWriter {
 public:
  virtual ~StreamWriter() = default;
  virtual bool write(std::string_view chunk) = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // When set, the body is streamed by this function instead (text/event-stream); it runs on
  // the HTTP thread of the connection until it returns.
  std::function<void(StreamWriter&)> stream;

  static HttpResponse json(int status, const nlohmann::json& body);
  // {"error":{"code":code,"message":message}}
  static HttpResponse error(int status, std::string_view code, std::string_view message);
  static HttpResponse text(int status, std::string body,
                           std::string content_type = "text/plain; charset=utf-8");
};

// The reason phrase of a status code ("Not Found"); "Unknown" for codes not listed.
const char* status_reason(int status);

// Percent-decodes `s` ('+' stays '+': only query strings use it for a space, see
// parse_query()). nullopt for a malformed escape ("%4", "%zz") or an encoded NUL.
std::optional<std::string> percent_decode(std::string_view s);
// Splits "a=1&b=x+y" into decoded pairs ('+' is a space here). Malformed escapes make the
// whole query invalid (nullopt); a key without '=' has an empty value; a repeated key keeps
// the last value.
std::optional<std::map<std::string, std::string>> parse_query(std::string_view query);

}  // namespace gantry::web
