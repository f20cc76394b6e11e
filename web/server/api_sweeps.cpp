// The shipped sweeps and capacity plans and their runs (web/API.md, "Sweeps and plans"): the same
// routes for both, under /api/v1/sweeps and /api/v1/plans.

#include <algorithm>
#include <fstream>
#include <sstream>

#include "engine/core/errors.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "web/server/api_routes.hpp"
#include "web/server/scenario_paths.hpp"
#include "web/server/yaml_json.hpp"

namespace gantry::web {

namespace {

namespace fs = std::filesystem;

std::string read_whole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What a shipped file says about itself: metadata.description, or else its leading comment
// block (the shipped sweeps and plans explain themselves there), as one paragraph.
std::string description_of(const nlohmann::ordered_json& doc, const std::string& text) {
  if (doc.contains("metadata") && doc["metadata"].is_object() &&
      doc["metadata"].contains("description") && doc["metadata"]["description"].is_string())
    return doc["metadata"]["description"];
  std::string out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line) && line.rfind('#', 0) == 0;) {
    const size_t start = line.find_first_not_of("# ");
    if (start == std::string::npos) continue;
    if (!out.empty()) out += ' ';
    out += line.substr(start);
  }
  return out;
}

// A shipped `kind: Sweep` or `kind: Plan` file: every *.yaml of that kind under the folder (its
// data and pipelines folders left out), sorted by path.
struct StudyFile {
  std::string name, description;
  fs::path path;
  std::string text;
};

std::vector<StudyFile> study_files(const fs::path& dir, const std::string& kind) {
  std::vector<StudyFile> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;  // no scenarios folder: nothing shipped
  std::vector<fs::path> paths;
  for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
    const std::string p = e.path().string();
    if (e.is_regular_file() && e.path().extension() == ".yaml" &&
        p.find("/pipelines/") == std::string::npos && p.find("/data/") == std::string::npos)
      paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  for (const fs::path& p : paths) {
    try {
      std::string text = read_whole(p);
      const auto doc = yaml_to_json(text);
      if (!doc.is_object() || doc.value("kind", "") != kind) continue;
      const auto& meta = doc.contains("metadata") && doc["metadata"].is_object()
                             ? doc["metadata"]
                             : nlohmann::ordered_json::object();
      out.push_back(
          {meta.value("name", p.stem().string()), description_of(doc, text), p, std::move(text)});
    } catch (const std::exception&) {
      // Not YAML: not a shipped sweep or plan (the scenarios listing leaves such files out too).
    }
  }
  return out;
}

// A catalog entry: the file as listed, with what its loader says of it (a file that does not
// load is listed with its error, so the page can say why it cannot run).
nlohmann::json catalog_entry(StudyKind kind, const StudyFile& f, const fs::path& folder) {
  const fs::path path = fs::weakly_canonical(fs::absolute(f.path));
  nlohmann::json j = {{"name", f.name},
                      {"file", path.lexically_relative(folder).string()},
                      {"kind", kind == StudyKind::kSweep ? "Sweep" : "Plan"},
                      {"description", f.description},
                      {"error", nullptr}};
  try {
    if (kind == StudyKind::kSweep) {
      const SweepSpec s = load_sweep_text(f.text, path.string());
      nlohmann::json axes = nlohmann::json::array();
      for (const SweepAxis& a : s.axes) axes.push_back(a.name);
      j["base"] = s.base_as_written;
      j["axes"] = axes;
      j["points"] = s.points.size();
      j["seeds"] = s.seeds;
      j["runs"] = s.points.size() * static_cast<size_t>(s.seeds);
      j["metrics"] = s.metrics;
      if (s.points.size() > kMaxServedSweepPoints ||
          s.points.size() * static_cast<size_t>(s.seeds) > kMaxServedSweepRuns)
        j["error"] = "too large for the server (at most " + std::to_string(kMaxServedSweepPoints) +
                     " points and " + std::to_string(kMaxServedSweepRuns) +
                     " runs): run it with gantry sweep";
    } else {
      const PlanSpec p = load_plan_text(f.text, path.string());
      nlohmann::json pools = nlohmann::json::array();
      for (const PlanPool& pool : p.pools) pools.push_back(pool.node_class);
      j["base"] = p.base_as_written;
      j["pools"] = pools;
      j["growth"] = p.growth;
    }
  } catch (const std::exception& e) {
    j["error"] = relative_to_folder(e.what(), folder);
  }
  return j;
}

void add_routes_of(Router& router, StudyService& studies, const fs::path& scenarios,
                   StudyKind kind) {
  const bool sweep = kind == StudyKind::kSweep;
  const std::string base = sweep ? "/api/v1/sweeps" : "/api/v1/plans";
  const std::string kind_name = sweep ? "Sweep" : "Plan";
  const std::string plural = sweep ? "sweeps" : "plans";
  const std::string noun = sweep ? "sweep" : "plan";
  const std::string name_key = sweep ? "sweepName" : "planName";

  router.get(base + "/catalog", [=](HttpRequest&) {
    const fs::path folder = fs::weakly_canonical(fs::absolute(scenarios));
    nlohmann::json list = nlohmann::json::array();
    for (const StudyFile& f : study_files(scenarios, kind_name))
      list.push_back(catalog_entry(kind, f, folder));
    return HttpResponse::json(200, {{plural, list}});
  });

  router
      .post(base,
            [=, &studies](HttpRequest& req) {
              const nlohmann::json b =
                  nlohmann::json::parse(req.body.empty() ? "{}" : req.body, nullptr, false);
              if (b.is_discarded() || !b.is_object())
                throw ApiError(400, "bad_request", "the body is not a JSON object");
              if (!b.contains(name_key))
                throw ApiError(400, "bad_request",
                               "give \"" + name_key + "\": the name of a shipped " + noun +
                                   " (GET " + base + "/catalog)");
              const std::string name = body_string(b, name_key, name_key);
              const fs::path folder = fs::weakly_canonical(fs::absolute(scenarios));
              // Only a shipped file, by name: nothing posted names a path.
              const std::vector<StudyFile> files = study_files(scenarios, kind_name);
              const auto it = std::find_if(files.begin(), files.end(),
                                           [&](const StudyFile& f) { return f.name == name; });
              if (it == files.end())
                throw ApiError(404, "not_found", "no shipped " + noun + " '" + name + "'");
              try {
                const std::string id =
                    studies.submit(kind, fs::weakly_canonical(fs::absolute(it->path)), folder);
                return HttpResponse::json(202, *studies.describe(kind, id, false));
              } catch (const InputError& e) {
                throw_invalid(e, folder, "the " + noun + " is not valid");
              } catch (const QueueFull& e) {
                throw ApiError(429, "busy", e.what());
              } catch (const GantryError& e) {  // a base that cannot be read
                throw ApiError(400, "bad_request", relative_to_folder(e.what(), folder));
              }
            })
      .writes = true;
  router.get(base, [=, &studies](HttpRequest&) {
    return HttpResponse::json(200, {{plural, studies.list(kind)}});
  });
  router.get(base + "/{id}", [=, &studies](HttpRequest& req) {
    const auto j = studies.describe(kind, req.param("id"), true);
    if (!j) throw ApiError(404, "not_found", "no " + noun + " '" + req.param("id") + "'");
    return HttpResponse::json(200, *j);
  });
  router
      .del(base + "/{id}",
           [=, &studies](HttpRequest& req) {
             if (!studies.remove(kind, req.param("id")))
               throw ApiError(404, "not_found", "no " + noun + " '" + req.param("id") + "'");
             return HttpResponse::json(200, {{"deleted", req.param("id")}});
           })
      .writes = true;
}

}  // namespace

void add_sweep_routes(Router& router, StudyService& studies, const fs::path& scenarios_dir) {
  add_routes_of(router, studies, scenarios_dir, StudyKind::kSweep);
  add_routes_of(router, studies, scenarios_dir, StudyKind::kPlan);
}

}  // namespace gantry::web
