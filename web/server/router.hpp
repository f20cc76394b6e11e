#pragma once
// Routes of the REST API: a method and a path pattern ("/api/v1/pipelines/{name}/runs") to a
// handler. Pure: matching never touches a socket, so it is tested by itself.
//
// Patterns are matched segment by segment; a "{name}" segment matches any one non-empty
// segment and binds it to request.params["name"] (the path arrives percent-decoded). Literal
// segments win over parameters where both match ("/pipelines/new" before "/pipelines/{name}"),
// whatever the order of add(). A path that matches some route but not for this method is 405 with
// the allowed methods, anything else 404. A trailing slash is not the same path.
//
// Cost: O(routes × segments) per request; the API has a few dozen routes.

#include <functional>
#include <string>
#include <vector>

#include "web/server/http_message.hpp"

namespace gantry::web {

using Handler = std::function<HttpResponse(HttpRequest&)>;

struct Route {
  std::string method;
  std::string pattern;
  Handler handler;
  bool is_public = false;   // no token needed (/healthz, /readyz)
  bool writes = false;      // changes state: needs a token that may write (editor or admin)
  bool admin_only = false;  // the tokens and the audit log: admin tokens only, GET included
  // Non-empty: a sweep worker's token (TokenRole::kSweepWorker) may call this route when this
  // path parameter equals the token's scope, its sweep's id. Empty: workers' tokens may not.
  std::string worker_scope{};
};

class Router {
 public:
  // Throws std::invalid_argument for a pattern that does not start with '/', has an empty
  // segment or an unclosed '{', or a method+pattern added twice.
  void add(Route route);
  Route& get(std::string pattern, Handler h) {
    return add_one("GET", std::move(pattern), std::move(h));
  }
  Route& post(std::string pattern, Handler h) {
    return add_one("POST", std::move(pattern), std::move(h));
  }
  Route& del(std::string pattern, Handler h) {
    return add_one("DELETE", std::move(pattern), std::move(h));
  }

  struct Match {
    const Route* route = nullptr;  // null: 404 or 405
    std::map<std::string, std::string> params;
    std::vector<std::string> allowed;  // for 405: the methods the path has, sorted
  };
  // `path` is percent-decoded already (civetweb decodes it; decoding twice would turn "%2525"
  // into "%").
  Match match(const std::string& method, const std::string& path) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  Route& add_one(std::string method, std::string pattern, Handler h);
  std::vector<Route> routes_;
};

// Splits "/a/b/c" into {"a","b","c"}; "/" gives {}. Empty segments ("//") are kept as "".
std::vector<std::string> split_path(const std::string& path);

}  // namespace gantry::web
