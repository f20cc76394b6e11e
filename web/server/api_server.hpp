#pragma once
// The front of `gantry serve`: one dispatch function for the HTTP listener that serves the
// web app's files, routes API requests, checks tokens, turns exceptions into JSON errors and
// counts every request for /metrics. The routes themselves are added by the api_*.cpp files.
//
// Access (issue 10, Security):
//  - every route needs "Authorization: Bearer <token>" unless marked public (/healthz,
//    /readyz); GET /api/v1/events also takes ?token= because a browser's EventSource cannot
//    send headers. No cookies: a cross-site page cannot make the browser act with the user's
//    credentials.
//  - roles (web/API.md has the table): viewer tokens may only GET; editor tokens may also change
//    state (every POST and DELETE: pipelines, runs, pools, simulations, sweeps, plans); admin
//    tokens may do everything, and they alone reach the routes marked admin_only (the tokens
//    and the audit log), GET included. Anything else is 403. A sweep worker's token
//    (token_store.hpp) may only call the routes that name it (Route::worker_scope), for its own
//    sweep: 403 otherwise, so a pod's token reads and writes nothing but its sweep's shards; once
//    the sweep has ended, 410 "sweep_ended" for every route.
//  - CORS headers only for the origin given by --allow-origin (OPTIONS preflight answered for
//    it); without it a browser refuses cross-origin reads, and cross-origin writes never get
//    past the preflight their Authorization header requires.
//
// Audit: every request to a route that changes state made with a person's token is recorded in
// the AuditLog (audit_log.hpp says which and why), here, after its answer, so a new route is
// audited without a line of its own. A failure to record is logged; it does not change the
// answer (the action has happened).
//
// Errors: a handler throws ApiError for an answer other than success; LoopUnavailable is 503;
// anything else is a 500 whose message is logged, not sent (it may hold internal detail).
//
// Thread-safe: dispatch() runs on every HTTP thread at once; the router is fixed before the
// server starts.

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

#include "web/server/audit_log.hpp"
#include "web/server/http_message.hpp"
#include "web/server/http_metrics.hpp"
#include "web/server/router.hpp"
#include "web/server/static_files.hpp"
#include "web/server/token_store.hpp"

namespace gantry::web {

class ApiError : public std::runtime_error {
 public:
  ApiError(int status, std::string code, const std::string& message)
      : std::runtime_error(message), status_(status), code_(std::move(code)) {}
  // With a body of its own instead of {"error":...} (validation errors: {"errors":[...]}).
  ApiError(int status, std::string code, const std::string& message, nlohmann::json body)
      : std::runtime_error(message),
        status_(status),
        code_(std::move(code)),
        body_(std::move(body)) {}
  int status() const { return status_; }
  const std::string& code() const { return code_; }
  const nlohmann::json& body() const { return body_; }

 private:
  int status_;
  std::string code_;
  nlohmann::json body_;  // null: the standard error body
};

struct ApiOptions {
  std::filesystem::path ui_root;  // the built web app (web/ui/dist)
  std::string allow_origin{};     // "" = no CORS
  // Where 500s are reported (the server's log); defaults to stderr.
  std::function<void(const std::string&)> log{};
  AuditLog* audit = nullptr;  // where state-changing requests are recorded; null: nowhere
};

// Why a token of `role` may not call `route` with `method`: the 403's message, or nullopt when
// it may. For admin, editor and viewer tokens (sweep workers' are checked by their scope).
std::optional<std::string> role_refusal(TokenRole role, const Route& route,
                                        const std::string& method);
// Does a request to `route` with `method` change state (and so go into the audit log)?
bool changes_state(const Route& route, const std::string& method);

class ApiServer {
 public:
  ApiServer(TokenStore& tokens, ApiOptions options);

  Router& router() { return router_; }
  const Router& router() const { return router_; }
  HttpMetrics& metrics() { return metrics_; }

  HttpResponse dispatch(HttpRequest& req);

 private:
  HttpResponse route(HttpRequest& req, std::string& route_label);
  HttpResponse call_handler(const Route& route, HttpRequest& req);
  void audit(const HttpRequest& req, const Route& route, int status);
  void add_cors(const HttpRequest& req, HttpResponse& r) const;

  TokenStore& tokens_;
  ApiOptions options_;
  Router router_;
  StaticFiles static_files_;
  HttpMetrics metrics_;
};

// Parses an integer query parameter in [min, max]; absent gives `fallback`. Throws ApiError 400
// naming the parameter.
int64_t query_int(const HttpRequest& req, const std::string& key, int64_t fallback, int64_t min,
                  int64_t max);

}  // namespace gantry::web
