#include "web/server/api_server.hpp"

#include <cctype>
#include <chrono>
#include <iostream>

#include "web/server/loop_call.hpp"
#include "web/server/utf8_text.hpp"

namespace gantry::web {

namespace {

bool is_api_path(const std::string& path) {
  return path.rfind("/api/", 0) == 0 || path == "/api" || path == "/healthz" || path == "/readyz" ||
         path == "/metrics";
}

// "Authorization: Bearer <token>". The scheme is case-insensitive and followed by one or more
// spaces (RFC 7235, section 2.1; RFC 6750, section 2.1), so "bearer" is as good as "Bearer".
std::optional<std::string> bearer_token(const HttpRequest& req) {
  const auto h = req.header("authorization");
  if (!h) return std::nullopt;
  constexpr std::string_view kScheme = "bearer";
  if (h->size() <= kScheme.size() || (*h)[kScheme.size()] != ' ') return std::nullopt;
  for (size_t i = 0; i < kScheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>((*h)[i])) != kScheme[i]) return std::nullopt;
  const size_t start = h->find_first_not_of(' ', kScheme.size());
  if (start == std::string::npos) return std::nullopt;
  return h->substr(start);
}

HttpResponse internal_error() {
  return HttpResponse::error(500, "internal", "internal error (logged by the server)");
}

}  // namespace

bool changes_state(const Route& route, const std::string& method) {
  return route.writes || (method != "GET" && method != "HEAD");
}

std::optional<std::string> role_refusal(TokenRole role, const Route& route,
                                        const std::string& method) {
  if (role == TokenRole::kAdmin) return std::nullopt;
  if (route.admin_only)
    return std::string("only an admin token may ") + method + " " + route.pattern +
           " (this token is " + to_string(role) + ")";
  if (role == TokenRole::kEditor) return std::nullopt;
  if (changes_state(route, method))
    return std::string("a viewer token may only read, not ") + method + " " + route.pattern;
  if (role == TokenRole::kViewer) return std::nullopt;
  return std::string("a ") + to_string(role) + " token may not " + method + " " + route.pattern;
}

int64_t query_int(const HttpRequest& req, const std::string& key, int64_t fallback, int64_t min,
                  int64_t max) {
  const auto v = req.query_value(key);
  if (!v) return fallback;
  size_t used = 0;
  int64_t n = 0;
  try {
    n = std::stoll(*v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v->size() || n < min || n > max)
    throw ApiError(400, "bad_request",
                   "?" + key + ": expected an integer from " + std::to_string(min) + " to " +
                       std::to_string(max) + ", got '" + *v + "'");
  return n;
}

ApiServer::ApiServer(TokenStore& tokens, ApiOptions options)
    : tokens_(tokens), options_(std::move(options)), static_files_(options_.ui_root) {
  if (!options_.log) options_.log = [](const std::string& line) { std::cerr << line << '\n'; };
}

void ApiServer::add_cors(const HttpRequest& req, HttpResponse& r) const {
  if (options_.allow_origin.empty()) return;
  const auto origin = req.header("origin");
  if (!origin || (options_.allow_origin != "*" && *origin != options_.allow_origin)) return;
  r.headers.emplace_back("Access-Control-Allow-Origin",
                         options_.allow_origin == "*" ? "*" : *origin);
  r.headers.emplace_back("Vary", "Origin");
}

HttpResponse ApiServer::dispatch(HttpRequest& req) {
  const auto start = std::chrono::steady_clock::now();
  std::string label;
  HttpResponse r;
  // Nothing a request does may end the process: what the handlers' own catch in route() lets
  // through (a token check on a failing database, a static file) is a 500 here.
  try {
    if (!is_api_path(req.path)) {
      label = "static";
      r = (req.method == "GET" || req.method == "HEAD")
              ? static_files_.serve(req.path, req.header("accept-encoding").value_or(""))
              : HttpResponse::error(405, "method_not_allowed", "static files are read-only");
    } else {
      r = route(req, label);
      add_cors(req, r);
    }
  } catch (const std::exception& e) {
    options_.log("error: " + req.method + " " + req.path + ": " + e.what());
    r = internal_error();
  } catch (...) {
    options_.log("error: " + req.method + " " + req.path + ": an exception of unknown type");
    r = internal_error();
  }
  metrics_.record(label, req.method, r.status, std::chrono::steady_clock::now() - start);
  return r;
}

HttpResponse ApiServer::route(HttpRequest& req, std::string& label) {
  if (req.method == "OPTIONS" && !options_.allow_origin.empty()) {
    label = "preflight";
    HttpResponse r = HttpResponse::text(204, "");
    r.headers.emplace_back("Access-Control-Allow-Methods", "GET, POST, DELETE");
    r.headers.emplace_back("Access-Control-Allow-Headers",
                           "Authorization, Content-Type, Last-Event-ID");
    r.headers.emplace_back("Access-Control-Max-Age", "600");
    return r;
  }
  const Router::Match m = router_.match(req.method, req.path);
  if (m.route == nullptr) {
    label = "unmatched";
    if (m.allowed.empty()) return HttpResponse::error(404, "not_found", "no route " + req.path);
    std::string allow;
    for (const std::string& a : m.allowed) allow += (allow.empty() ? "" : ", ") + a;
    HttpResponse r = HttpResponse::error(405, "method_not_allowed",
                                         req.method + " is not allowed here; allowed: " + allow);
    r.headers.emplace_back("Allow", allow);
    return r;
  }
  label = m.route->pattern;
  const Route& route = *m.route;
  if (!route.is_public) {
    std::optional<std::string> token = bearer_token(req);
    if (!token && req.path == "/api/v1/events") token = req.query_value("token");
    const std::optional<TokenInfo> who = token ? tokens_.verify(*token) : std::nullopt;
    if (!who) {
      HttpResponse r = HttpResponse::error(
          401, "unauthorized", token ? "unknown or revoked token" : "missing bearer token");
      r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return r;
    }
    if (who->role == TokenRole::kSweepEnded)
      return HttpResponse::error(410, "sweep_ended",
                                 "sweep " + who->scope +
                                     " has ended (done or cancelled): its workers' token no "
                                     "longer works");
    req.role = to_string(who->role);
    req.token_name = who->name;
    req.params = m.params;
    if (who->role == TokenRole::kSweepWorker) {
      const auto scope = m.params.find(route.worker_scope);
      if (route.worker_scope.empty() || scope == m.params.end() || scope->second != who->scope)
        return HttpResponse::error(403, "forbidden",
                                   "a sweep worker's token may only fetch the shards of its own "
                                   "sweep (" +
                                       who->scope + ") and post their runs, not " + req.method +
                                       " " + route.pattern +
                                       (scope != m.params.end() ? " of " + scope->second : ""));
      return call_handler(route, req);  // a machine's traffic: not audited (audit_log.hpp)
    }
    HttpResponse r;
    if (const auto refusal = role_refusal(who->role, route, req.method))
      r = HttpResponse::error(403, "forbidden", *refusal);
    else
      r = call_handler(route, req);
    if (changes_state(route, req.method)) audit(req, route, r.status);
    return r;
  }
  req.params = m.params;
  return call_handler(route, req);
}

HttpResponse ApiServer::call_handler(const Route& route, HttpRequest& req) {
  try {
    return route.handler(req);
  } catch (const ApiError& e) {
    if (!e.body().is_null()) return HttpResponse::json(e.status(), e.body());
    return HttpResponse::error(e.status(), e.code(), e.what());
  } catch (const LoopUnavailable& e) {
    return HttpResponse::error(503, "unavailable", e.what());
  } catch (const std::exception& e) {
    options_.log("error: " + req.method + " " + req.path + ": " + e.what());
    return internal_error();
  }
}

void ApiServer::audit(const HttpRequest& req, const Route& route, int status) {
  if (options_.audit == nullptr) return;
  AuditEntry e;
  e.at_us = std::chrono::duration_cast<std::chrono::microseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count();
  // The path and its parameters are the client's bytes (a token's name too): those that are not
  // UTF-8 are kept as the text "\xFF", as the answers echo them, so the entry's JSON can be
  // written (utf8_text.hpp).
  e.token = escape_invalid_utf8(req.token_name);
  e.role = req.role;
  e.method = req.method;
  e.route = route.pattern;
  e.path = escape_invalid_utf8(req.path);
  for (const auto& [key, value] : req.params) e.target[key] = escape_invalid_utf8(value);
  e.status = status;
  try {
    options_.audit->record(e);
  } catch (const std::exception& ex) {
    options_.log("error: audit log: cannot record " + req.method + " " + req.path + " by " +
                 req.token_name + ": " + ex.what());
  }
}

}  // namespace gantry::web
