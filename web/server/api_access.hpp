#pragma once
// The routes of access control, all admin-only (web/API.md, "Tokens and audit"):
//   GET    /api/v1/tokens          the people's tokens (admin, editor, viewer): name, role,
//                                  created, last used; never the token or its hash
//   DELETE /api/v1/tokens/{name}   revokes one: refused at its next request (no cache)
//   GET    /api/v1/audit           the audit log, newest first, paged by ?before=<id>&limit=
// Creating a token stays with `gantry token create` on the server's machine: a token is shown
// once, and a web page is no place to show it.

#include "web/server/api_server.hpp"
#include "web/server/audit_log.hpp"
#include "web/server/token_store.hpp"

namespace gantry::web {

void add_access_routes(Router& router, TokenStore& tokens, AuditLog& audit);

}  // namespace gantry::web
