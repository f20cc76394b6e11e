// Health, readiness, metrics, the OpenAPI document and the event stream.

#include "web/server/api_routes.hpp"
#include "web/server/loop_call.hpp"
#include "web/server/openapi_document.hpp"

namespace gantry::web {

void add_meta_routes(ApiServer& api, ApiContext& ctx) {
  Router& router = api.router();
  ServeEngine& engine = ctx.engine;
  EventBus& bus = ctx.bus;

  router.get("/healthz", [](HttpRequest&) { return HttpResponse::text(200, "ok\n"); }).is_public =
      true;
  router
      .get("/readyz",
           [&engine](HttpRequest&) {
             if (!engine.ready()) return HttpResponse::text(503, "starting\n");
             // Ready means the database's state is the server's: a stored document it could
             // not load is named here (ServeEngine::problems()).
             const std::vector<std::string> problems = engine.problems();
             if (problems.empty()) return HttpResponse::text(200, "ready\n");
             std::string detail = "not ready:\n";
             for (const std::string& p : problems) detail += p + "\n";
             return HttpResponse::text(503, detail);
           })
      .is_public = true;
  router.get("/metrics", [&engine, &api](HttpRequest&) {
    std::string text = call_on_loop(engine.loop(), [&engine] { return engine.prometheus(); });
    text += api.metrics().prometheus();
    return HttpResponse::text(200, std::move(text), "text/plain; version=0.0.4; charset=utf-8");
  });
  // What /readyz says, as JSON for the web app's banner and `gantry pipeline list`: whether
  // the database is open and recovered, and each problem (a stored document not loaded, a
  // full disk) until it is cleared.
  router.get("/api/v1/problems", [&engine](HttpRequest&) {
    return HttpResponse::json(200, {{"ready", engine.ready()}, {"problems", engine.problems()}});
  });
  // Who the token is, so the web app offers only what its role may do (web/API.md, roles).
  router.get("/api/v1/whoami", [](HttpRequest& req) {
    return HttpResponse::json(200, {{"role", req.role}, {"name", req.token_name}});
  });
  // The orchestrator's clock: at --speed N it runs N times faster than the wall clock (and
  // ahead of it), so a client computing "in 5 minutes" or a running task's duration needs it.
  router.get("/api/v1/clock", [&engine](HttpRequest&) {
    const Time now = call_on_loop(engine.loop(), [&engine] { return engine.loop().now(); });
    return HttpResponse::json(200, {{"now", format_rfc3339(now)}, {"speed", engine.speed()}});
  });
  router.get("/api/v1/openapi.json", [](HttpRequest&) {
    return HttpResponse::text(200, std::string(openapi_document()), "application/json");
  });

  router.get("/api/v1/events", [&bus](HttpRequest& req) {
    // Resume after Last-Event-ID (header, or ?lastEventId= for clients that cannot set it);
    // a new subscriber gets what happens from now on.
    uint64_t after = bus.last_id();
    if (const auto header = req.header("last-event-id")) {
      req.query["lastEventId"] = *header;  // one parser for both spellings
    }
    if (req.query_value("lastEventId"))
      after = static_cast<uint64_t>(query_int(req, "lastEventId", 0, 0, INT64_MAX));
    HttpResponse r;
    r.content_type = "text/event-stream";
    r.headers.emplace_back("X-Accel-Buffering", "no");
    r.stream = [&bus, after](StreamWriter& w) mutable {
      if (!w.write("retry: 2000\n\n")) return;
      while (true) {
        const EventBus::Batch b = bus.wait_after(after, std::chrono::seconds(15));
        if (b.closed) return;
        std::string chunk;
        // The reset carries the id it resumes from, so a browser that reconnects after it
        // sends that, not the id that caused it (which would reset it again).
        if (b.reset) chunk += "id: " + std::to_string(b.last) + "\nevent: reset\ndata: {}\n\n";
        for (const BusEvent& e : b.events) chunk += EventBus::format(e);
        after = b.last;
        if (chunk.empty()) chunk = ": keep-alive\n\n";  // also tells a vanished client apart
        if (!w.write(chunk)) return;
      }
    };
    return r;
  });
}

}  // namespace gantry::web
