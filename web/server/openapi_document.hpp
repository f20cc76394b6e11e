#pragma once
// The OpenAPI 3.1 document of the REST API (web/server/openapi.json, compiled in), served at
// GET /api/v1/openapi.json. tests/web checks it against the routes the server has.

#include <string_view>

namespace gantry::web {

std::string_view openapi_document();

}  // namespace gantry::web
