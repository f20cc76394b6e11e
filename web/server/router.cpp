#include "web/server/router.hpp"

#include <algorithm>
#include <stdexcept>

namespace gantry::web {

namespace {

bool is_param(const std::string& segment) {
  return segment.size() >= 3 && segment.front() == '{' && segment.back() == '}';
}

}  // namespace

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  if (path.empty() || path == "/") return out;
  size_t start = path[0] == '/' ? 1 : 0;
  while (true) {
    const size_t slash = path.find('/', start);
    out.push_back(
        path.substr(start, slash == std::string::npos ? std::string::npos : slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return out;
}

void Router::add(Route route) {
  if (route.pattern.empty() || route.pattern[0] != '/')
    throw std::invalid_argument("route pattern must start with '/': " + route.pattern);
  for (const std::string& s : split_path(route.pattern)) {
    if (s.empty())
      throw std::invalid_argument("route pattern has an empty segment: " + route.pattern);
    if ((s.find('{') != std::string::npos || s.find('}') != std::string::npos) && !is_param(s))
      throw std::invalid_argument("route pattern has a malformed parameter: " + route.pattern);
  }
  for (const Route& r : routes_)
    if (r.method == route.method && r.pattern == route.pattern)
      throw std::invalid_argument("route added twice: " + route.method + " " + route.pattern);
  routes_.push_back(std::move(route));
}

Route& Router::add_one(std::string method, std::string pattern, Handler h) {
  add(Route{std::move(method), std::move(pattern), std::move(h)});
  return routes_.back();
}

Router::Match Router::match(const std::string& method, const std::string& path) const {
  Match result;
  const std::vector<std::string> segments = split_path(path);
  // Score: the number of literal segments, so literal routes beat parameter routes.
  int best_score = -1;
  for (const Route& r : routes_) {
    const std::vector<std::string> pattern = split_path(r.pattern);
    if (pattern.size() != segments.size()) continue;
    std::map<std::string, std::string> params;
    int score = 0;
    bool ok = true;
    for (size_t i = 0; i < pattern.size() && ok; ++i) {
      if (is_param(pattern[i])) {
        if (segments[i].empty())
          ok = false;
        else
          params[pattern[i].substr(1, pattern[i].size() - 2)] = segments[i];
      } else if (pattern[i] == segments[i]) {
        ++score;
      } else {
        ok = false;
      }
    }
    if (!ok) continue;
    if (r.method != method) {
      if (std::find(result.allowed.begin(), result.allowed.end(), r.method) == result.allowed.end())
        result.allowed.push_back(r.method);
      continue;
    }
    if (score > best_score) {
      best_score = score;
      result.route = &r;
      result.params = std::move(params);
    }
  }
  std::sort(result.allowed.begin(), result.allowed.end());
  return result;
}

}  // namespace gantry::web
