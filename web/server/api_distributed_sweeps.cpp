// Distributed sweeps (web/API.md, "Distributed sweeps"): submitted by `gantry sweep --on
// kubernetes`, their shards fetched and their runs posted by `gantry sweep-worker` pods, under
// /api/v1/distributed-sweeps. A separate resource from /api/v1/sweeps (the shipped sweeps the
// server runs itself): these are the user's own files, run elsewhere, and their workers hold
// tokens that reach nothing else (Route::worker_scope).

#include <charconv>

#include "engine/core/errors.hpp"
#include "engine/store/store_error.hpp"
#include "web/server/api_routes.hpp"
#include "web/server/utf8_text.hpp"

namespace gantry::web {

namespace {

constexpr const char* kBase = "/api/v1/distributed-sweeps";
// Runs in one post: a worker posts each as it finishes; a batch is for catching up.
constexpr size_t kMaxRunsPerPost = 1000;

nlohmann::json body_object(const HttpRequest& req) {
  nlohmann::json b = nlohmann::json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
  if (b.is_discarded() || !b.is_object())
    throw ApiError(400, "bad_request", "the body is not a JSON object");
  return b;
}

size_t shard_param(const HttpRequest& req) {
  const std::string& text = req.param("shard");
  size_t k = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
  if (ec != std::errc() || end != text.data() + text.size())
    throw ApiError(400, "bad_request", "shard: expected a number from 0, got '" + text + "'");
  return k;
}

// A call into the coordinator, with its errors as HTTP answers.
template <typename F>
auto coordinator_answer(F&& f) {
  try {
    return f();
  } catch (const CoordinatorError& e) {
    switch (e.kind) {
      case CoordinatorError::kNotFound:
        throw ApiError(404, "not_found", e.what());
      case CoordinatorError::kConflict:
        throw ApiError(409, "conflict", e.what());
      case CoordinatorError::kBadRequest:
        break;
    }
    throw ApiError(400, "bad_request", e.what());
  } catch (const StoreError&) {
    throw;  // the server's own trouble: a 500, logged
  } catch (const InputError& e) {
    // The sweep's own errors, named as in the user's folder: {"errors":[...]} as every invalid
    // document's 400.
    const auto* all = dynamic_cast<const InputErrors*>(&e);
    nlohmann::json errors = nlohmann::json::array();
    for (const InputError& one : all ? all->errors() : std::vector<InputError>{e})
      errors.push_back({{"file", one.where().file},
                        {"line", one.where().line},
                        {"column", one.where().column},
                        {"path", one.field()},
                        {"message", one.detail()}});
    throw ApiError(400, "invalid", "the sweep is not valid", {{"errors", errors}});
  } catch (const GantryError& e) {
    throw ApiError(400, "bad_request", e.what());
  }
}

}  // namespace

void add_distributed_sweep_routes(Router& router, SweepCoordinator& coordinator) {
  const std::string base = kBase;
  router
      .post(base,
            [&coordinator, base](HttpRequest& req) {
              require_utf8(req.body, "request body");
              const nlohmann::json b = body_object(req);
              const auto shards = b.find("shards");
              if (shards == b.end() || !shards->is_number_unsigned())
                throw ApiError(400, "bad_request",
                               "shards: expected a whole number from 1, the pods of the Job");
              const SubmittedSweep s = coordinator_answer([&] {
                return coordinator.submit(documents_from_json(b), shards->get<size_t>());
              });
              return HttpResponse::json(201, {{"id", s.id},
                                              {"shards", s.shards},
                                              {"runs", s.runs},
                                              {"token", s.token},
                                              {"url", base + "/" + s.id}});
            })
      .writes = true;
  router.get(base, [&coordinator](HttpRequest&) {
    return HttpResponse::json(200, {{"sweeps", coordinator.list()}});
  });
  router.get(base + "/{id}", [&coordinator](HttpRequest& req) {
    const auto j = coordinator.describe(req.param("id"), true);
    if (!j) throw ApiError(404, "not_found", "no distributed sweep '" + req.param("id") + "'");
    return HttpResponse::json(200, *j);
  });
  router
      .del(base + "/{id}",
           [&coordinator](HttpRequest& req) {
             return HttpResponse::json(
                 200, coordinator_answer([&] { return coordinator.cancel(req.param("id")); }));
           })
      .writes = true;
  router
      .get(base + "/{id}/progress",
           [&coordinator](HttpRequest& req) {
             const long long after = query_int(req, "after", -1, -1, INT64_MAX);
             const int64_t timeout = query_int(req, "timeout", 30, 0, 60);
             return HttpResponse::json(200, coordinator_answer([&] {
                                         return coordinator.wait(req.param("id"), after,
                                                                 std::chrono::seconds(timeout));
                                       }));
           })
      .worker_scope = "id";
  router
      .get(base + "/{id}/shards/{shard}",
           [&coordinator](HttpRequest& req) {
             const ShardWork w = coordinator_answer(
                 [&] { return coordinator.shard(req.param("id"), shard_param(req)); });
             nlohmann::json j = w.documents;
             j["id"] = req.param("id");
             j["state"] = w.state;
             j["shard"] = w.shard;
             j["shards"] = w.shards;
             j["begin"] = w.range.begin;
             j["end"] = w.range.end;
             j["recorded"] = w.recorded;
             return HttpResponse::json(200, j);
           })
      .worker_scope = "id";
  Route& runs = router.post(base + "/{id}/shards/{shard}/runs", [&coordinator](HttpRequest& req) {
    const nlohmann::json b = body_object(req);
    const auto list = b.find("runs");
    if (list == b.end() || !list->is_array() || list->empty() || list->size() > kMaxRunsPerPost)
      throw ApiError(
          400, "bad_request",
          "runs: expected an array of 1 to " + std::to_string(kMaxRunsPerPost) + " runs");
    const PostOutcome o = coordinator_answer([&] {
      std::vector<PostedRun> posted;
      for (size_t i = 0; i < list->size(); ++i)
        posted.push_back(run_from_json((*list)[i], "runs[" + std::to_string(i) + "]"));
      return coordinator.post_runs(req.param("id"), shard_param(req), posted);
    });
    return HttpResponse::json(200, {{"recorded", o.recorded},
                                    {"duplicates", o.duplicates},
                                    {"state", o.state},
                                    {"runs", {{"done", o.done}, {"total", o.total}}}});
  });
  runs.writes = true;
  runs.worker_scope = "id";
  Route& failure =
      router.post(base + "/{id}/shards/{shard}/failure", [&coordinator](HttpRequest& req) {
        require_utf8(req.body, "request body");
        const nlohmann::json b = body_object(req);
        const std::string message = body_string(b, "message", "message");
        if (message.empty())
          throw ApiError(400, "bad_request", "message: say why the shard failed");
        coordinator_answer([&] {
          coordinator.report_failure(req.param("id"), shard_param(req), message);
          return 0;
        });
        return HttpResponse::json(200, {{"recorded", true}});
      });
  failure.writes = true;
  failure.worker_scope = "id";
}

}  // namespace gantry::web
