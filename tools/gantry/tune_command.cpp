#include "tools/gantry/tune_command.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "adapters/traces/azure_llm_trace.hpp"
#include "engine/config/reader.hpp"
#include "engine/config/units.hpp"
#include "engine/core/errors.hpp"
#include "report/number_format.hpp"
#include "sim/serving/service_file.hpp"
#include "sim/serving/service_loader.hpp"
#include "sim/serving/spec_tuner.hpp"
#include "sim/simulation_file.hpp"
#include "tools/gantry/cli_inputs.hpp"

namespace gantry::cli {

namespace {

struct TuneCommandOptions {
  std::string file;
  std::string slo;
  std::string service;
  std::string qps;  // empty: the load's peak
  std::string measure = "10m";
  uint64_t seed = 1;
  bool no_exhaustive = false;
  std::string format = "text";
};

// "p99=2s" (the one SLO tuning knows), or "2s".
Duration read_slo(const std::string& text) {
  std::string value = text;
  if (const auto eq = text.find('='); eq != std::string::npos) {
    if (text.substr(0, eq) != "p99")
      throw GantryError(fmt::format("--slo: '{}': only a p99 latency is tuned for (p99=2s)", text));
    value = text.substr(eq + 1);
  }
  const auto d = parse_duration(value);
  if (!d || d.value() <= Duration(0))
    throw GantryError(fmt::format("--slo: '{}': expected p99=<duration>, e.g. p99=2s", text));
  return d.value();
}

ServiceSpec pick_service(const TuneCommandOptions& opt) {
  const std::string kind = first_document_kind(read_text_file(opt.file), opt.file);
  if (kind == "InferenceService") {
    if (!opt.service.empty())
      throw GantryError("--service: " + opt.file + " holds one service; drop --service");
    return load_service_file(opt.file);
  }
  SimulationFile file = load_simulation_file(opt.file, {});
  auto* scenario = std::get_if<ScenarioSpec>(&file);
  if (scenario == nullptr || scenario->workload.services.empty())
    throw GantryError(opt.file + ": neither an InferenceService nor a Scenario with services");
  const auto& services = scenario->workload.services;
  if (opt.service.empty()) {
    if (services.size() == 1) return services.front();
    std::vector<std::string> names;
    for (const ServiceSpec& s : services) names.push_back(s.name);
    throw GantryError(fmt::format("{} has {} services; pick one with --service ({})", opt.file,
                                  services.size(), fmt::join(names, ", ")));
  }
  for (const ServiceSpec& s : services)
    if (s.name == opt.service) return s;
  throw GantryError(fmt::format("--service: {} has no service '{}'", opt.file, opt.service));
}

std::string point_text(const TunePoint& p) {
  return fmt::format("{:<10}{:>7}{:>10}{:>10}{:>12}", p.key, p.batch, p.replicas,
                     seconds_human(p.p99_s), with_commas(p.cost_per_hour, 2));
}

nlohmann::ordered_json point_json(const std::optional<TunePoint>& p) {
  if (!p) return nullptr;
  return {{"capacity", p->key},
          {"max_batch", p->batch},
          {"replicas", p->replicas},
          {"p99_s", p->p99_s},
          {"cost_per_hour", p->cost_per_hour}};
}

// --qps: requests per second above 0 and at most a service's limit (10^7); NaN, infinities and
// anything else are refused, never ignored.
double read_qps(const std::string& text) {
  const Result<double> qps = parse_number(text, 0, kMaxServiceQps);
  if (!qps || !(qps.value() > 0))
    throw GantryError(fmt::format(
        "--qps: '{}': expected requests per second above 0 and at most 10000000 (10^7)", text));
  return qps.value();
}

// --measure: a duration from 10s to 1d.
Duration read_measure(const std::string& text) {
  const auto measure = parse_duration(text);
  if (!measure || measure.value() < kMinTuneMeasure || measure.value() > kMaxTuneMeasure)
    throw GantryError(
        fmt::format("--measure: '{}': expected a duration from 10s to 1d (simulated time per "
                    "grid point)",
                    text));
  return measure.value();
}

// What the tuning would simulate stays within minutes (spec_tuner.hpp's limits); the message
// says what to change.
void check_tune_budget(double peak, const TuneOptions& o, int grid_points, bool qps_given) {
  const std::string peak_text =
      qps_given ? fmt::format("--qps {:g}", peak) : fmt::format("the load's peak {:g}/s", peak);
  const double per_point = peak * o.measure.seconds();
  if (per_point > kMaxTuneRequestsPerPoint)
    throw GantryError(fmt::format(
        "--measure: {} at {} is {:.3g} simulated requests per grid point, above the limit of "
        "10^8 (some 10 s of simulation each): shorten --measure or lower --qps",
        format_duration_exact(o.measure), peak_text, per_point));
  const double grid = per_point * grid_points;
  if (o.exhaustive && grid > kMaxTuneGridRequests)
    throw GantryError(fmt::format(
        "the exhaustive comparison would simulate {:.3g} requests ({} grid points × {} × {}), "
        "above the limit of 10^10 (some 20 minutes): pass --no-exhaustive, shorten --measure "
        "or lower --qps",
        grid, grid_points, peak_text, format_duration_exact(o.measure)));
}

void run_tune(const TuneCommandOptions& opt) {
  TuneOptions options;
  options.slo_p99 = read_slo(opt.slo);
  if (!opt.qps.empty()) options.peak_qps = read_qps(opt.qps);
  options.seed = opt.seed;
  options.exhaustive = !opt.no_exhaustive;
  options.measure = read_measure(opt.measure);
  const ServiceSpec service = pick_service(opt);
  std::shared_ptr<const std::vector<TraceRequest>> trace;
  if (service.load.kind == LoadKind::kTrace)
    trace = std::make_shared<const std::vector<TraceRequest>>(
        load_azure_llm_trace(service.load.trace_file, service.load.speedup));
  check_tune_budget(options.peak_qps > 0 ? options.peak_qps : peak_qps(service, trace.get()),
                    options, tune_grid_size(service), !opt.qps.empty());

  const auto t0 = std::chrono::steady_clock::now();
  const TuneResult r = tune_service(service, trace, options);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double share = r.grid_size > 0 ? static_cast<double>(r.sampled) / r.grid_size : 0;

  if (opt.format == "json") {
    nlohmann::ordered_json j;
    j["service"] = service.name;
    j["slo_p99_s"] = options.slo_p99.seconds();
    j["peak_qps"] = r.peak_qps;
    j["grid_points"] = r.grid_size;
    j["sampled_points"] = r.sampled;
    j["simulations"] = r.simulations;
    j["best"] = point_json(r.best);
    j["exhaustive_best"] = point_json(r.exhaustive_best);
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("Tuning {} for p99 ≤ {} at {} requests/s (its peak)\n\n", service.name,
                           seconds_human(options.slo_p99.seconds()), with_commas(r.peak_qps, 1));
  std::cout << fmt::format("  {:<12}{:<10}{:>7}{:>10}{:>10}{:>12}\n", "", "capacity", "batch",
                           "replicas", "p99", "cost/hour");
  const auto row = [](const char* label, const std::optional<TunePoint>& p) {
    return p ? fmt::format("  {:<12}{}\n", label, point_text(*p))
             : fmt::format("  {:<12}no point of the grid holds the SLO\n", label);
  };
  std::cout << row("search", r.best);
  if (options.exhaustive) std::cout << row("exhaustive", r.exhaustive_best);
  std::cout << fmt::format(
      "\n  The search simulated {} of {} grid points ({}) in {} runs; {} took {}.\n",
      with_commas(int64_t{r.sampled}), with_commas(int64_t{r.grid_size}), percent(share),
      with_commas(int64_t{r.simulations}),
      options.exhaustive ? "search and exhaustive grid" : "the search", seconds_human(wall));
  if (options.exhaustive && r.best && r.exhaustive_best &&
      std::abs(r.best->cost_per_hour - r.exhaustive_best->cost_per_hour) > 1e-9)
    std::cout << "  The search's answer costs more than the exhaustive one.\n";
}

}  // namespace

void add_tune_command(CLI::App& app) {
  auto opt = std::make_shared<TuneCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tune", "Find the cheapest GPU, share, batch and replicas that hold a latency SLO");
  cmd->add_option("service", opt->file, "InferenceService YAML file (or a Scenario with services)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--slo", opt->slo, "The latency objective, p99=<duration> (e.g. p99=2s)")
      ->required();
  cmd->add_option("--service", opt->service, "With a Scenario: the service to tune");
  cmd->add_option("--qps", opt->qps,
                  "Peak requests per second, above 0 and at most 10^7 (default: the load's peak)");
  cmd->add_option("--measure", opt->measure,
                  "Simulated time per grid point at the full budget, 10s to 1d (default 10m); "
                  "peak × measure at most 10^8 requests, and × the grid's points at most 10^10 "
                  "unless --no-exhaustive");
  cmd->add_option("--seed", opt->seed, "Seed of the simulated arrivals (0 to 2^63-1)")
      ->check(seed_validator());
  cmd->add_flag("--no-exhaustive", opt->no_exhaustive,
                "Skip simulating every grid point (the comparison)");
  cmd->add_option("--format", opt->format, "Report format")->check(CLI::IsMember({"text", "json"}));
  cmd->footer("Example: gantry tune scenarios/serving/chat-service.yaml --slo p99=2s");
  cmd->callback([opt] { run_tune(*opt); });
}

}  // namespace gantry::cli
