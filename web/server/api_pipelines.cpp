// Pipelines, runs and pools (web/API.md, "Pipelines").

#include <nlohmann/json.hpp>

#include "web/server/api_routes.hpp"
#include "web/server/loop_call.hpp"
#include "web/server/run_queries.hpp"
#include "web/server/utf8_text.hpp"
#include "workflow/runner/run.hpp"

namespace gantry::web {

Time parse_time_param(const std::string& text, const std::string& what) {
  Result<Time> t = read_rfc3339(text);
  if (!t)
    throw ApiError(
        400, "bad_request",
        what + ": expected an RFC 3339 time such as 2026-10-01T03:00:00Z, got '" + text + "'");
  return t.value();
}

void require_utf8(const std::string& text, const std::string& file) {
  const std::optional<size_t> bad = first_invalid_utf8(text);
  if (!bad) return;
  const TextPosition at = position_of(text, *bad);
  const std::string message =
      "not UTF-8: byte " + escape_invalid_utf8(text.substr(*bad, 1)) + " (YAML and JSON are UTF-8)";
  throw ApiError(400, "invalid", file + " is not UTF-8",
                 {{"errors",
                   {{{"file", file},
                     {"line", at.line},
                     {"column", at.column},
                     {"path", ""},
                     {"message", message}}}}});
}

std::string body_string(const nlohmann::json& body, const std::string& key,
                        const std::string& field, const std::string& fallback) {
  if (!body.contains(key)) return fallback;
  if (!body[key].is_string())
    throw ApiError(400, "bad_request", field + ": expected a string, got " + json_text(body[key]));
  return body[key].get<std::string>();
}

namespace {

bool query_flag(const HttpRequest& req, const std::string& key) {
  const auto v = req.query_value(key);
  if (!v) return false;
  if (*v == "true" || v->empty() || *v == "1") return true;
  if (*v == "false" || *v == "0") return false;
  throw ApiError(400, "bad_request", "?" + key + ": expected true or false, got '" + *v + "'");
}

// ?state= names a run state; any other word would match nothing and look like "no runs".
std::string run_state_param(const std::string& word) {
  std::string allowed;
  for (int i = static_cast<int>(RunState::kQueued); i <= static_cast<int>(RunState::kKilled); ++i) {
    const std::string_view name = to_string(static_cast<RunState>(i));
    if (word == name) return word;
    allowed += (allowed.empty() ? "" : ", ") + std::string(name);
  }
  throw ApiError(400, "bad_request", "?state: expected one of " + allowed + ", got '" + word + "'");
}

nlohmann::json body_json(const HttpRequest& req) {
  if (req.body.empty()) return nlohmann::json::object();
  nlohmann::json j = nlohmann::json::parse(req.body, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    throw ApiError(400, "bad_request", "the body is not a JSON object");
  return j;
}

}  // namespace

void add_pipeline_routes(Router& router, ApiContext& ctx) {
  ServeEngine& engine = ctx.engine;
  EventLoop& loop = engine.loop();

  router.get("/api/v1/pipelines", [&](HttpRequest& req) {
    PipelineFilter filter;
    filter.q = req.query_value("q").value_or("");
    filter.tag = req.query_value("tag").value_or("");
    filter.owner = req.query_value("owner").value_or("");
    filter.state = req.query_value("state").value_or("");
    if (const auto bad = pipeline_state_error(filter.state))
      throw ApiError(400, "bad_request", *bad);
    return HttpResponse::json(
        200, call_on_loop(loop, [&engine, filter] { return engine.list_pipelines(filter); }));
  });
  router
      .post("/api/v1/pipelines",
            [&](HttpRequest& req) {
              const std::string type = req.header("content-type").value_or("application/yaml");
              if (type.find("yaml") == std::string::npos &&
                  type.find("json") == std::string::npos &&
                  type.find("text/plain") == std::string::npos)
                throw ApiError(415, "unsupported_media_type",
                               "send application/yaml or application/json, not " + type);
              const bool dry = query_flag(req, "dryRun");
              // New pipelines start paused unless asked (?paused=false): saving in the editor
              // never starts a schedule, nor its backlog, by itself.
              const bool paused = !req.query_value("paused") || query_flag(req, "paused");
              require_utf8(req.body, "body");
              auto [out, created] = call_on_loop(loop, [&engine, body = req.body, dry, paused] {
                bool made = false;
                nlohmann::json applied = engine.apply(body, dry, made,
                                                      paused ? ServeEngine::NewPipelines::kPaused
                                                             : ServeEngine::NewPipelines::kStart);
                return std::make_pair(std::move(applied), made);
              });
              return HttpResponse::json(created ? 201 : 200, out);
            })
      .writes = true;
  router.get("/api/v1/pipelines/{name}", [&](HttpRequest& req) {
    return HttpResponse::json(200, call_on_loop(loop, [&engine, name = req.param("name")] {
                                return engine.pipeline(name);
                              }));
  });
  router
      .del("/api/v1/pipelines/{name}",
           [&](HttpRequest& req) {
             const bool purge = query_flag(req, "purge");
             return HttpResponse::json(
                 200, call_on_loop(loop, [&engine, name = req.param("name"), purge] {
                   return engine.delete_pipeline(name, purge);
                 }));
           })
      .writes = true;
  for (const bool pause : {true, false}) {
    router
        .post(std::string("/api/v1/pipelines/{name}/") + (pause ? "pause" : "resume"),
              [&, pause](HttpRequest& req) {
                return HttpResponse::json(
                    200, call_on_loop(loop, [&engine, name = req.param("name"), pause] {
                      return engine.set_paused(name, pause);
                    }));
              })
        .writes = true;
  }
  router
      .post("/api/v1/pipelines/{name}/trigger",
            [&](HttpRequest& req) {
              // {"params": {name: value}}: checked against spec.params; defaults fill the rest.
              const nlohmann::json b = body_json(req);
              for (const auto& [key, value] : b.items())
                if (key != "params")
                  throw ApiError(400, "bad_request",
                                 key + ": unknown field (trigger takes params)");
              const nlohmann::json params = b.value("params", nlohmann::json());
              return HttpResponse::json(
                  201, call_on_loop(loop, [&engine, name = req.param("name"), params] {
                    return engine.trigger(name, params);
                  }));
            })
      .writes = true;
  router
      .post("/api/v1/pipelines/{name}/backfill",
            [&](HttpRequest& req) {
              const nlohmann::json b = body_json(req);
              if (!b.contains("from") || !b.contains("to") || !b["from"].is_string() ||
                  !b["to"].is_string())
                throw ApiError(400, "bad_request", "backfill needs {\"from\": time, \"to\": time}");
              const Time from = parse_time_param(b["from"], "from"),
                         to = parse_time_param(b["to"], "to");
              const std::string rerun_word = body_string(b, "rerun", "rerun", "none");
              const std::optional<BackfillRerun> rerun = parse_backfill_rerun(rerun_word);
              if (!rerun)
                throw ApiError(400, "bad_request",
                               "rerun: expected none, failed or all, got '" + rerun_word + "'");
              return HttpResponse::json(200, call_on_loop(loop, [&engine, name = req.param("name"),
                                                                 from, to, r = *rerun] {
                                          return engine.backfill(name, from, to, r);
                                        }));
            })
      .writes = true;

  router.get("/api/v1/pipelines/{name}/runs", [&](HttpRequest& req) {
    RunPageQuery q;
    q.pipeline = req.param("name");
    q.limit = static_cast<int>(query_int(req, "limit", 50, 1, 1000));
    if (const auto s = req.query_value("state"); s && !s->empty()) q.state = run_state_param(*s);
    if (const auto f = req.query_value("from")) q.from = parse_time_param(*f, "?from");
    if (const auto t = req.query_value("to")) q.to = parse_time_param(*t, "?to");
    if (req.query_value("after")) q.after = query_int(req, "after", 0, INT64_MIN, INT64_MAX);
    RunPage page = engine.queries().page(q);
    nlohmann::ordered_json out;
    out["runs"] = std::move(page.runs);  // a copy was a sixth of the route's time (perf)
    out["next"] = page.next ? nlohmann::ordered_json(std::to_string(*page.next))
                            : nlohmann::ordered_json(nullptr);
    HttpResponse r;
    r.body = json_text(out) + "\n";
    return r;
  });
  router.get("/api/v1/pipelines/{name}/runs/{logicalTime}", [&](HttpRequest& req) {
    const Time lt = parse_time_param(req.param("logicalTime"), "logicalTime");
    const nlohmann::ordered_json run = engine.queries().run(req.param("name"), lt);
    if (run.is_null())
      throw ApiError(404, "not_found",
                     "no run of " + req.param("name") + " at " + req.param("logicalTime"));
    HttpResponse r;
    r.body = json_text(run) + "\n";
    return r;
  });
  for (const auto& [word, kind] :
       {std::pair{"rerun", ActionKind::kRerun}, std::pair{"mark-success", ActionKind::kMarkSuccess},
        std::pair{"kill", ActionKind::kKillRun}}) {
    const ActionKind k = kind;
    router
        .post(std::string("/api/v1/pipelines/{name}/runs/{logicalTime}/") + word,
              [&, k](HttpRequest& req) {
                const Time lt = parse_time_param(req.param("logicalTime"), "logicalTime");
                return HttpResponse::json(
                    200, call_on_loop(
                             loop, [&engine, name = req.param("name"), lt, k, by = req.token_name] {
                               return engine.run_action(name, lt, k, "", by);
                             }));
              })
        .writes = true;
  }
  router
      .post("/api/v1/pipelines/{name}/runs/{logicalTime}/tasks/{task}/kill",
            [&](HttpRequest& req) {
              const Time lt = parse_time_param(req.param("logicalTime"), "logicalTime");
              return HttpResponse::json(
                  200, call_on_loop(loop, [&engine, name = req.param("name"), lt,
                                           task = req.param("task"), by = req.token_name] {
                    return engine.run_action(name, lt, ActionKind::kKillTask, task, by);
                  }));
            })
      .writes = true;
  // Task actions (web/API.md, "Task actions"): clear with Airflow's options, mark success,
  // mark failed; ?dryRun=true says what would change without changing it.
  for (const auto& [word, kind] : {std::pair{"clear", ActionKind::kClearTask},
                                   std::pair{"mark-success", ActionKind::kMarkTaskSuccess},
                                   std::pair{"mark-failed", ActionKind::kMarkTaskFailed}}) {
    const ActionKind k = kind;
    router
        .post(std::string("/api/v1/pipelines/{name}/runs/{logicalTime}/tasks/{task}/") + word,
              [&, k](HttpRequest& req) {
                const Time lt = parse_time_param(req.param("logicalTime"), "logicalTime");
                const bool dry = query_flag(req, "dryRun");
                OperatorAction a;
                a.kind = k;
                a.task = req.param("task");
                const nlohmann::json b = body_json(req);
                for (const auto& [key, value] : b.items()) {
                  const bool known =
                      k == ActionKind::kClearTask &&
                      (key == "downstream" || key == "upstream" || key == "failedOnly");
                  if (!known)
                    throw ApiError(400, "bad_request",
                                   key + ": unknown field" +
                                       (k == ActionKind::kClearTask
                                            ? " (clear takes downstream, upstream, failedOnly)"
                                            : " (this action takes no body)"));
                  if (!value.is_boolean())
                    throw ApiError(400, "bad_request",
                                   key + ": expected true or false, got " + json_text(value));
                }
                a.downstream = b.value("downstream", false);
                a.upstream = b.value("upstream", false);
                a.failed_only = b.value("failedOnly", false);
                return HttpResponse::json(
                    200, call_on_loop(
                             loop, [&engine, name = req.param("name"), lt, a, by = req.token_name,
                                    dry] { return engine.task_action(name, lt, a, by, dry); }));
              })
        .writes = true;
  }
  // The story of one attempt, then in the live world its pods' logs (attempt_log.hpp).
  router.get(
      "/api/v1/pipelines/{name}/runs/{logicalTime}/tasks/{task}/attempts/{n}/log",
      [&](HttpRequest& req) {
        const Time lt = parse_time_param(req.param("logicalTime"), "logicalTime");
        const std::string& n_text = req.param("n");
        const bool digits = !n_text.empty() && n_text.size() <= 9 &&
                            n_text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoul(n_text) == 0)
          throw ApiError(400, "bad_request",
                         "n: expected an attempt number (1 for the first), got '" + n_text + "'");
        const size_t n = std::stoul(n_text);
        ServeEngine::AttemptLog log =
            call_on_loop(loop, [&engine, name = req.param("name"), lt, task = req.param("task"),
                                n] { return engine.attempt_log(name, lt, task, n); });
        // Off the loop thread: reading a pod's log waits for the API server.
        if (log.live) log.text += "\n" + engine.live_pod_logs(log.id);
        return HttpResponse::text(200, std::move(log.text));
      });
  router.get("/api/v1/pools", [&](HttpRequest&) {
    return HttpResponse::json(200, call_on_loop(loop, [&engine] { return engine.pools(); }));
  });
}

}  // namespace gantry::web
