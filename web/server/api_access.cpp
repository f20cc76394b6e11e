#include "web/server/api_access.hpp"

#include "engine/core/time.hpp"

namespace gantry::web {

namespace {

nlohmann::json token_json(const TokenInfo& t) {
  return {{"id", t.id},
          {"name", t.name},
          {"role", to_string(t.role)},
          {"created", format_rfc3339(Time::from_micros(t.created_us))},
          {"lastUsed", t.last_used_us > 0
                           ? nlohmann::json(format_rfc3339(Time::from_micros(t.last_used_us)))
                           : nlohmann::json(nullptr)}};
}

}  // namespace

void add_access_routes(Router& router, TokenStore& tokens, AuditLog& audit) {
  router
      .get("/api/v1/tokens",
           [&tokens](HttpRequest&) {
             nlohmann::json list = nlohmann::json::array();
             for (const TokenInfo& t : tokens.list_users()) list.push_back(token_json(t));
             return HttpResponse::json(200, {{"tokens", std::move(list)}});
           })
      .admin_only = true;
  Route& revoke = router.del("/api/v1/tokens/{name}", [&tokens](HttpRequest& req) {
    const std::string& name = req.param("name");
    TokenInfo revoked;
    switch (tokens.revoke_named(name, &revoked)) {
      case RevokeOutcome::kRevoked:
        return HttpResponse::json(200, {{"revoked", token_json(revoked)}});
      case RevokeOutcome::kNotFound:
        throw ApiError(404, "not_found", "no token named '" + name + "'");
      case RevokeOutcome::kAmbiguous:
        throw ApiError(409, "conflict",
                       "several tokens are named '" + name +
                           "' (made before names were unique): revoke one by id with gantry "
                           "token revoke --id ID --db (gantry token list shows the ids)");
      case RevokeOutcome::kLastAdmin:
        break;
    }
    throw ApiError(409, "conflict",
                   "'" + name +
                       "' is the only admin token: create another admin token first (gantry "
                       "token create --role admin), or nothing could manage tokens");
  });
  revoke.admin_only = true;
  revoke.writes = true;
  router
      .get("/api/v1/audit",
           [&audit](HttpRequest& req) {
             const int limit = static_cast<int>(query_int(req, "limit", 100, 1, 1000));
             std::optional<int64_t> before;
             if (req.query_value("before")) before = query_int(req, "before", 0, 1, INT64_MAX);
             AuditPage page = audit.page(limit, before);
             nlohmann::json entries = nlohmann::json::array();
             for (const AuditEntry& e : page.entries) entries.push_back(to_json(e));
             return HttpResponse::json(
                 200, {{"entries", std::move(entries)},
                       {"next", page.next ? nlohmann::json(std::to_string(*page.next))
                                          : nlohmann::json(nullptr)}});
           })
      .admin_only = true;
}

}  // namespace gantry::web
