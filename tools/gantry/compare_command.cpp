#include "tools/gantry/compare_command.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/core/errors.hpp"
#include "engine/store/database.hpp"
#include "engine/store/database_kind.hpp"
#include "report/text_table.hpp"
#include "sim/results_writer.hpp"
#include "tools/gantry/compare_figures.hpp"

namespace gantry::cli {

namespace {

struct CompareOptions {
  std::string a, b;
  std::string variant;
  std::string format = "text";
};

// "path[:policy]" with path a results.db or the folder holding it.
struct ResultRef {
  std::string label;
  std::string path;
  std::string policy;
};

ResultRef parse_ref(const std::string& text) {
  ResultRef r;
  r.label = text;
  r.path = text;
  if (const auto colon = text.rfind(':'); colon != std::string::npos && colon > 0) {
    r.path = text.substr(0, colon);
    r.policy = text.substr(colon + 1);
  }
  if (std::filesystem::is_directory(r.path))
    r.path = (std::filesystem::path(r.path) / "results.db").string();
  if (!std::filesystem::is_regular_file(r.path))
    throw GantryError(fmt::format("{}: no results database at {}", text, r.path));
  return r;
}

std::string meta(Database& db, const std::string& key) {
  Statement s = db.prepare("SELECT value FROM meta WHERE key = ?");
  s.bind_all(key);
  return s.step() ? s.column_text(0) : std::string();
}

// Opens a results database read-only, refusing what `gantry simulate` did not finish writing:
// another program's file, another kind of Gantry database, and a results database without
// the completeness mark (a copy taken half-way, or one from an older Gantry), which would
// otherwise print as a table of zeros.
Database open_read(const ResultRef& r) {
  std::optional<Identity> identity;
  try {
    identity = identify_file(r.path, kResultsDatabase);
  } catch (const StoreError& e) {
    throw GantryError(fmt::format("{}: {}", r.label, e.what()));
  }
  if (!identity || identity->ownership == Ownership::kForeign ||
      identity->ownership == Ownership::kEmpty) {
    throw GantryError(fmt::format("{}: {} is not a Gantry results database ({})", r.label, r.path,
                                  identity ? identity->description : "no such file"));
  }
  OpenOptions o;
  o.create = false;
  o.read_only = true;
  Database db = Database::open(r.path, o);
  if (meta(db, "complete") != "true") {
    throw GantryError(fmt::format(
        "{}: {} is incomplete: the simulation that wrote it did not finish (or an older Gantry "
        "wrote it); run gantry simulate again",
        r.label, r.path));
  }
  return db;
}

struct CurvePoint {
  double allocated = 0, unallocated = 0, fragmented = 0;
};

std::map<int, CurvePoint> curves(Database& db, const ResultRef& r, std::string& variant) {
  if (variant.empty()) {
    Statement first = db.prepare("SELECT variant FROM curves ORDER BY rowid LIMIT 1");
    if (first.step()) variant = first.column_text(0);
  }
  Statement s = db.prepare(
      "SELECT arrival_pct, allocated_gpu_pct_mean, unallocated_gpu_pct_mean, "
      "fragmentation_pct_mean FROM curves WHERE variant = ? AND lower(policy) = lower(?) "
      "ORDER BY arrival_pct");
  s.bind_all(variant, r.policy);
  std::map<int, CurvePoint> out;
  while (s.step())
    out[static_cast<int>(s.column_int64(0))] = {s.column_double(1), s.column_double(2),
                                                s.column_double(3)};
  if (out.empty())
    throw GantryError(
        fmt::format("{}: no curves for policy '{}' in pod list '{}'", r.label, r.policy, variant));
  return out;
}

// The figures of both runs, section by section in the text report's order; a figure only
// one run has (a queue the other did not define) shows "—" on the other side.
void compare_training(const ResultRef& a, const ResultRef& b, Database& da, Database& dbb,
                      const std::string& format) {
  const std::vector<Figure> fa = read_figures(da), fb = read_figures(dbb);
  std::map<std::string, const Figure*> by_key_b;
  for (const Figure& f : fb) by_key_b[f.key] = &f;
  // A's order, then what only B has.
  std::vector<std::pair<const Figure*, const Figure*>> rows;
  std::map<std::string, bool> seen;
  for (const Figure& f : fa) {
    const auto it = by_key_b.find(f.key);
    rows.emplace_back(&f, it == by_key_b.end() ? nullptr : it->second);
    seen[f.key] = true;
  }
  for (const Figure& f : fb)
    if (!seen.contains(f.key)) rows.emplace_back(nullptr, &f);

  if (format == "json") {
    nlohmann::ordered_json j;
    j["a"] = a.label;
    j["b"] = b.label;
    nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
    for (const auto& [pa, pb] : rows) {
      if (pa == nullptr || pb == nullptr) continue;
      metrics[pa->key] = {{"a", pa->value}, {"b", pb->value}, {"delta", pb->value - pa->value}};
    }
    j["metrics"] = metrics;
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::cout << fmt::format("A  {} ({}, placement {})\nB  {} ({}, placement {})\n", a.label,
                           meta(da, "scenario"), meta(da, "placement"), b.label,
                           meta(dbb, "scenario"), meta(dbb, "placement"));
  // One table, so that the columns line up across the sections.
  TextTable table({"", "A", "B", "B − A", "B/A"});
  std::string section;
  for (const auto& [pa, pb] : rows) {
    const Figure& f = pa != nullptr ? *pa : *pb;
    if (f.section != section) {
      section = f.section;
      table.add({section});
    }
    const std::string va = pa != nullptr ? format_figure(f.unit, pa->value) : "—";
    const std::string vb = pb != nullptr ? format_figure(f.unit, pb->value) : "—";
    std::string difference = "—", ratio = "—";
    if (pa != nullptr && pb != nullptr) {
      difference = format_difference(f.unit, pb->value - pa->value);
      if (pa->value != 0) ratio = fmt::format("{:.2f}", pb->value / pa->value);
    }
    table.add({"  " + f.label, va, vb, difference, ratio});
  }
  std::cout << "\n" << table.render("  ");
}

void compare_fragmentation(const ResultRef& a, const ResultRef& b, Database& da, Database& dbb,
                           std::string variant, const std::string& format) {
  std::string va = variant, vb = variant;
  const auto ca = curves(da, a, va);
  const auto cb = curves(dbb, b, vb);
  static constexpr int kLevels[] = {50, 80, 90, 95, 100, 110, 120, 130};
  if (format == "json") {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    for (const auto& [level, pa] : ca) {
      const auto it = cb.find(level);
      if (it == cb.end()) continue;
      rows.push_back({{"arrival_pct", level},
                      {"a_unallocated_gpu_pct", pa.unallocated},
                      {"b_unallocated_gpu_pct", it->second.unallocated},
                      {"a_fragmentation_pct", pa.fragmented},
                      {"b_fragmentation_pct", it->second.fragmented}});
    }
    std::cout << nlohmann::ordered_json{{"a", a.label}, {"b", b.label}, {"rows", rows}}.dump(2)
              << "\n";
    return;
  }
  std::cout << fmt::format("A  {}  (pod list {})\nB  {}  (pod list {})\n", a.label, va, b.label,
                           vb);
  std::cout << "Mean over seeds, % of cluster GPU capacity.\n\n";
  std::cout << fmt::format("  {:>8}  {:>19}  {:>19}  {:>19}\n", "arrived", "allocated A | B",
                           "unallocated A | B", "fragmented A | B");
  for (int level : kLevels) {
    const auto ia = ca.find(level), ib = cb.find(level);
    if (ia == ca.end() || ib == cb.end()) continue;
    const CurvePoint& pa = ia->second;
    const CurvePoint& pb = ib->second;
    std::cout << fmt::format(
        "  {:>7}%  {:>8.1f} | {:<8.1f}  {:>8.1f} | {:<8.1f}  {:>8.1f} | {:<8.1f}\n", level,
        pa.allocated, pb.allocated, pa.unallocated, pb.unallocated, pa.fragmented, pb.fragmented);
  }
  const auto last_a = ca.rbegin()->second, last_b = cb.rbegin()->second;
  if (last_a.unallocated > 0)
    std::cout << fmt::format(
        "\n  At {}% arrival B leaves {:.1f} % of the GPUs unallocated against "
        "A's {:.1f} % ({:+.0f} %).\n",
        ca.rbegin()->first, last_b.unallocated, last_a.unallocated,
        100.0 * (last_b.unallocated - last_a.unallocated) / last_a.unallocated);
}

void run_compare(const CompareOptions& opt) {
  const ResultRef a = parse_ref(opt.a), b = parse_ref(opt.b);
  Database da = open_read(a), dbb = open_read(b);
  const bool frag_a = meta(da, "kind") == "fragmentation";
  const bool frag_b = meta(dbb, "kind") == "fragmentation";
  if (frag_a != frag_b)
    throw GantryError("cannot compare a fragmentation experiment with a training simulation");
  if (frag_a) {
    if (a.policy.empty() || b.policy.empty())
      throw GantryError("name the policy of each experiment result, e.g. results.db:FGD");
    compare_fragmentation(a, b, da, dbb, opt.variant, opt.format);
  } else {
    compare_training(a, b, da, dbb, opt.format);
  }
}

}  // namespace

void add_compare_command(CLI::App& app) {
  auto opt = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "Show two result sets side by side");
  cmd->add_option("a", opt->a, "results.db or DIR (experiments: results.db:POLICY)")->required();
  cmd->add_option("b", opt->b, "results.db or DIR (experiments: results.db:POLICY)")->required();
  cmd->add_option("--variant", opt->variant, "Pod list of a sweep (default: the first)");
  cmd->add_option("--format", opt->format, "Report format")->check(CLI::IsMember({"text", "json"}));
  cmd->footer(
      "Example: gantry compare gantry-out/teams-borrowing-off gantry-out/teams-borrowing-on");
  cmd->callback([opt] { run_compare(*opt); });
}

}  // namespace gantry::cli
