#pragma once
// The routes of the REST API (web/API.md), by area. Each handler parses and checks its request
// on the HTTP thread, then does the engine's part on the loop thread (call_on_loop) or reads the
// database (RunQueries) or the simulation service, which are thread-safe.

#include <filesystem>

#include "engine/core/errors.hpp"
#include "web/server/api_server.hpp"
#include "web/server/event_bus.hpp"
#include "web/server/serve_engine.hpp"
#include "web/server/simulation_service.hpp"
#include "web/server/study_service.hpp"
#include "web/server/sweep_coordinator.hpp"

namespace gantry::web {

struct ApiContext {
  ServeEngine& engine;
  SimulationService& simulations;
  EventBus& bus;
  std::filesystem::path scenarios_dir;  // the shipped what-if scenarios
};

void add_pipeline_routes(Router& router, ApiContext& ctx);  // api_pipelines.cpp
void add_cluster_routes(Router& router, ApiContext& ctx);   // api_cluster.cpp
void add_meta_routes(ApiServer& api, ApiContext& ctx);  // api_meta.cpp (health, metrics, events)
// The shipped sweeps and plans and their runs (api_sweeps.cpp); `scenarios_dir` as ApiContext's.
void add_sweep_routes(Router& router, StudyService& studies,
                      const std::filesystem::path& scenarios_dir);
// The distributed sweeps: their submission, shards, runs and progress
// (api_distributed_sweeps.cpp).
void add_distributed_sweep_routes(Router& router, SweepCoordinator& coordinator);

// Throws the 400 "invalid" of a file that is not valid: {"errors": [{"file", "line", "column",
// "path", "message"}]}, one per InputError (every one of InputErrors), with paths relative to
// `folder` (the scenarios folder), and `message` as the error's message.
[[noreturn]] void throw_invalid(const InputError& e, const std::filesystem::path& folder,
                                const std::string& message);

// RFC 3339 from a path or query value; ApiError 400 naming `what` otherwise.
Time parse_time_param(const std::string& text, const std::string& what);

// YAML and JSON are UTF-8: a body with any other byte is refused before it is parsed, with a
// 400 in the shape of validation errors ({"errors":[{"file":file,"line","column","path":"",
// "message"}]}) naming the first bad byte. Nothing else in the server then meets such text.
void require_utf8(const std::string& text, const std::string& file);

// The string at `key` of the JSON object `body`, `fallback` when absent; ApiError 400 naming
// `field` (the key's dotted path) when it is there but not a string.
std::string body_string(const nlohmann::json& body, const std::string& key,
                        const std::string& field, const std::string& fallback = "");

}  // namespace gantry::web
