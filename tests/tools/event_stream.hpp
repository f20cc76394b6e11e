#pragma once
// Reads a real server's event stream (GET /api/v1/events) from the start of the bus's history,
// one event at a time, until `done` says so: the end-to-end tests wait on what the server
// announces, never on a sleep. `timeout` bounds the whole stream (a failure, not a wait).

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>

#include "web/client/http_client.hpp"

namespace gantry::testing {

using EventPredicate = std::function<bool(const std::string& type, const nlohmann::json& data)>;

inline void watch_events(const std::string& url, const std::string& token,
                         std::chrono::milliseconds timeout, const EventPredicate& done) {
  web::HttpClient client(url, {.token = token, .timeout = timeout});
  std::string buffer;
  client.stream("/api/v1/events?lastEventId=0", [&](std::string_view chunk) {
    buffer += chunk;
    for (size_t end; (end = buffer.find("\n\n")) != std::string::npos;) {
      const std::string event = buffer.substr(0, end);
      buffer.erase(0, end + 2);
      std::string type, data;
      std::istringstream in(event);
      for (std::string line; std::getline(in, line);) {
        if (line.rfind("event: ", 0) == 0) type = line.substr(7);
        if (line.rfind("data: ", 0) == 0) data = line.substr(6);
      }
      if (!type.empty() && done(type, nlohmann::json::parse(data))) return false;
    }
    return true;
  });
}

}  // namespace gantry::testing
