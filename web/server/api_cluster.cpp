// The cluster, its queue, the shipped scenarios and what-if simulations (web/API.md, "Cluster
// and simulations").

#include <fstream>
#include <limits>
#include <sstream>

#include "engine/config/config_errors.hpp"
#include "engine/core/errors.hpp"
#include "engine/policy/plugin_registry.hpp"
#include "web/server/api_routes.hpp"
#include "web/server/loop_call.hpp"
#include "web/server/scenario_paths.hpp"
#include "web/server/utf8_text.hpp"
#include "web/server/yaml_json.hpp"

namespace gantry::web {

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The shipped scenarios: every *.yaml under the folder (one level of subfolders), named by
// metadata.name; files that do not parse are left out.
struct ScenarioFile {
  std::string name, kind, description;
  fs::path path;
  nlohmann::json defaults = nlohmann::json::object();
  nlohmann::json policies = nlohmann::json::array();
};

// What the what-if form shows as "as in file", read from the document.
void read_defaults(const nlohmann::ordered_json& doc, ScenarioFile& f) {
  const auto& spec = doc.contains("spec") ? doc["spec"] : nlohmann::ordered_json::object();
  f.defaults["seed"] = spec.value("seed", 1);
  if (f.kind == "Scenario") {
    const auto& policy =
        spec.contains("policy") ? spec["policy"] : nlohmann::ordered_json::object();
    f.defaults["policy"] = policy.value("placement", "binpack");
    for (const std::string& p : placement_plugin_names()) f.policies.push_back(p);
    if (spec.contains("cluster")) {
      const auto& c = spec["cluster"];
      int64_t nodes = 0;
      if (c.contains("racks"))
        for (const auto& r : c["racks"]) nodes += r.value("nodes", 0);
      if (nodes > 0) f.defaults["nodes"] = nodes;
      if (c.contains("fabric")) f.defaults["fabric"] = c["fabric"].value("kind", "");
      if (c.contains("nodeClasses"))
        for (const auto& nc : c["nodeClasses"])
          if (nc.contains("gpu")) {
            f.defaults["gpuType"] = nc["gpu"].value("type", "");
            break;
          }
    }
  } else if (spec.contains("policies")) {
    for (const auto& p : spec["policies"])
      f.policies.push_back(p.is_string() ? p.get<std::string>() : p.value("name", ""));
  }
}

std::vector<ScenarioFile> scenario_files(const fs::path& dir) {
  std::vector<ScenarioFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml" &&
        e.path().parent_path().filename() != "data" &&
        e.path().string().find("/pipelines/") == std::string::npos &&
        e.path().string().find("/data/") == std::string::npos)
      paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) {
    try {
      const auto j = yaml_to_json(read_file(p));
      const std::string kind = j.value("kind", "");
      if (kind != "Scenario" && kind != "Experiment") continue;
      const auto& meta = j.contains("metadata") ? j["metadata"] : nlohmann::ordered_json::object();
      ScenarioFile f{meta.value("name", p.stem().string()), kind, meta.value("description", ""), p};
      read_defaults(j, f);
      out.push_back(std::move(f));
    } catch (const std::exception&) {
    }
  }
  return out;
}

std::optional<ScenarioFile> find_scenario(const fs::path& dir, const std::string& name) {
  for (ScenarioFile& f : scenario_files(dir))
    if (f.name == name) return f;
  return std::nullopt;
}

}  // namespace

void throw_invalid(const InputError& e, const fs::path& folder, const std::string& message) {
  // Every error of the file (InputErrors), or the one.
  const auto* all = dynamic_cast<const InputErrors*>(&e);
  nlohmann::json errors = nlohmann::json::array();
  for (const InputError& one : all ? all->errors() : std::vector<InputError>{e})
    errors.push_back({{"file", relative_to_folder(one.where().file, folder)},
                      {"line", one.where().line},
                      {"column", one.where().column},
                      {"path", one.field()},
                      {"message", relative_to_folder(one.detail(), folder)}});
  throw ApiError(400, "invalid", message, {{"errors", errors}});
}

void add_cluster_routes(Router& router, ApiContext& ctx) {
  ServeEngine& engine = ctx.engine;
  EventLoop& loop = engine.loop();
  SimulationService& sims = ctx.simulations;
  const fs::path scenarios = ctx.scenarios_dir;

  router.get("/api/v1/cluster", [&](HttpRequest&) {
    return HttpResponse::json(200, call_on_loop(loop, [&engine] { return engine.cluster(); }));
  });
  router.get("/api/v1/cluster/queue", [&](HttpRequest&) {
    return HttpResponse::json(200, call_on_loop(loop, [&engine] { return engine.queue(); }));
  });
  router.get("/api/v1/scenarios", [scenarios](HttpRequest&) {
    nlohmann::json list = nlohmann::json::array();
    for (const ScenarioFile& f : scenario_files(scenarios))
      list.push_back({{"name", f.name},
                      {"file", fs::relative(f.path, scenarios).string()},
                      {"kind", f.kind},
                      {"description", f.description},
                      {"defaults", f.defaults},
                      {"policies", f.policies}});
    return HttpResponse::json(200, {{"scenarios", list}});
  });
  router.get("/api/v1/scenarios/{name}", [scenarios](HttpRequest& req) {
    const auto f = find_scenario(scenarios, req.param("name"));
    if (!f) throw ApiError(404, "not_found", "no shipped scenario '" + req.param("name") + "'");
    return HttpResponse::json(200, {{"name", f->name}, {"yaml", read_file(f->path)}});
  });

  router
      .post("/api/v1/simulations",
            [&sims, scenarios](HttpRequest& req) {
              const nlohmann::json b =
                  nlohmann::json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
              if (b.is_discarded() || !b.is_object())
                throw ApiError(400, "bad_request", "the body is not a JSON object");
              // Paths in messages are relative to the scenarios folder, never the server's.
              const fs::path folder = fs::weakly_canonical(fs::absolute(scenarios));
              SimulationRequest r;
              r.folder = folder;
              if (b.contains("scenarioName")) {
                const std::string name = body_string(b, "scenarioName", "scenarioName");
                const auto f = find_scenario(scenarios, name);
                if (!f) throw ApiError(404, "not_found", "no shipped scenario '" + name + "'");
                r.scenario_yaml = read_file(f->path);
                r.file = fs::weakly_canonical(fs::absolute(f->path)).string();
              } else if (b.contains("scenario") && b["scenario"].is_string()) {
                // Treated as the file posted.yaml of the scenarios folder: its data paths
                // resolve among the shipped files, and may name nothing else.
                r.scenario_yaml = b["scenario"];
                r.file = (folder / "posted.yaml").string();
                r.confine_to_folder = true;
              } else {
                throw ApiError(
                    400, "bad_request",
                    "give \"scenarioName\" (a shipped scenario) or \"scenario\" (YAML text)");
              }
              if (b.contains("seed")) {
                // The range of a scenario's spec.seed (and of --seed): 0 to 2^63 - 1.
                constexpr uint64_t kMaxSeed = std::numeric_limits<int64_t>::max();
                if (!b["seed"].is_number_unsigned() || b["seed"].get<uint64_t>() > kMaxSeed)
                  throw ApiError(400, "bad_request",
                                 "seed: expected an integer from 0 to " + std::to_string(kMaxSeed) +
                                     ", got " + json_text(b["seed"]));
                r.seed = b["seed"].get<uint64_t>();
              }
              r.policy = body_string(b, "policy", "policy");
              if (b.contains("overrides")) {
                const auto& o = b["overrides"];
                if (!o.is_object())
                  throw ApiError(
                      400, "bad_request",
                      "overrides: expected an object such as {\"nodes\": 8}, got " + json_text(o));
                for (const auto& [key, value] : o.items())
                  if (key != "nodes" && key != "gpuType" && key != "fabric")
                    throw ApiError(
                        400, "bad_request",
                        "overrides." + key + ": unknown; expected nodes, gpuType or fabric");
                if (o.contains("nodes")) {
                  if (!o["nodes"].is_number_integer() || o["nodes"].get<int64_t>() < 1 ||
                      o["nodes"].get<int64_t>() > 100000)
                    throw ApiError(400, "bad_request",
                                   "overrides.nodes: expected an integer from 1 to 100000");
                  r.overrides.nodes = o["nodes"].get<int>();
                }
                if (o.contains("gpuType"))
                  r.overrides.gpu_type = body_string(o, "gpuType", "overrides.gpuType");
                if (o.contains("fabric"))
                  r.overrides.fabric = body_string(o, "fabric", "overrides.fabric");
              }
              try {
                const std::string id = sims.submit(r);
                return HttpResponse::json(202, *sims.describe(id, false));
              } catch (const InputError& e) {
                throw_invalid(e, folder, "the scenario is not valid");
              } catch (const std::invalid_argument& e) {
                throw ApiError(400, "bad_request", relative_to_folder(e.what(), folder));
              }
            })
      .writes = true;
  router.get("/api/v1/simulations", [&sims](HttpRequest&) {
    return HttpResponse::json(200, {{"simulations", sims.list()}});
  });
  router.get("/api/v1/simulations/{id}", [&sims](HttpRequest& req) {
    const auto j = sims.describe(req.param("id"), true);
    if (!j) throw ApiError(404, "not_found", "no simulation '" + req.param("id") + "'");
    return HttpResponse::json(200, *j);
  });
  router.get("/api/v1/simulations/{id}/series", [&sims](HttpRequest& req) {
    const auto j = sims.series(req.param("id"));
    if (!j) throw ApiError(404, "not_found", "no finished simulation '" + req.param("id") + "'");
    return HttpResponse::json(200, *j);
  });
  router
      .del("/api/v1/simulations/{id}",
           [&sims](HttpRequest& req) {
             if (!sims.remove(req.param("id")))
               throw ApiError(404, "not_found", "no simulation '" + req.param("id") + "'");
             return HttpResponse::json(200, {{"deleted", req.param("id")}});
           })
      .writes = true;
}

}  // namespace gantry::web
