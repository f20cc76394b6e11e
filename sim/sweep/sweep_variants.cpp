#include "sim/sweep/sweep_variants.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <stdexcept>

#include "engine/config/config_errors.hpp"
#include "engine/config/envelope.hpp"
#include "engine/config/quote.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/sweep/load_growth.hpp"
#include "sim/sweep/sweep_metrics.hpp"

namespace gantry {

namespace {

// A value set at a concrete path of one variant.
struct Assignment {
  std::string path;  // concrete (spec.cluster.racks[2].nodes), or the first field it added
  const SweepValue* value;
};

bool under(const std::string& field, const std::string& path) {
  if (field.rfind(path, 0) != 0) return false;
  return field.size() == path.size() || field[path.size()] == '.' || field[path.size()] == '[';
}

// Collects errors once each, in the order found.
class DistinctErrors {
 public:
  void add(InputError e) {
    if (seen_.insert(e.what()).second) list_.push_back(std::move(e));
  }
  // In the order of the sweep file (a product repeats values in another order than written).
  void throw_if_any() {
    std::stable_sort(list_.begin(), list_.end(), [](const InputError& a, const InputError& b) {
      return std::pair(a.where().line, a.where().column) <
             std::pair(b.where().line, b.where().column);
    });
    if (!list_.empty()) throw InputErrors(list_);
  }

 private:
  std::set<std::string> seen_;
  std::vector<InputError> list_;
};

// The errors of one point's scenario, pointed at the sweep file.
void report_point_errors(const SweepSpec& sweep, const SweepPoint& point,
                         const std::vector<Assignment>& assignments, const InputErrors& found,
                         DistinctErrors& out) {
  for (const InputError& e : found.errors()) {
    const Assignment* culprit = nullptr;
    for (const Assignment& a : assignments)
      if (under(e.field(), a.path)) culprit = &a;
    if (culprit != nullptr) {
      out.add(InputError(culprit->value->where, culprit->value->field,
                         fmt::format("{} at {} of {}: {}", quote_for_message(culprit->value->text),
                                     e.field(), sweep.base_as_written, e.detail())));
    } else {
      out.add(InputError(point.where, point.field,
                         fmt::format("the point {} makes an invalid scenario: {}",
                                     point_label(sweep, point), e.what())));
    }
  }
}

void check_metrics(const SweepSpec& sweep, const ScenarioSpec& scenario, DistinctErrors& out) {
  for (const std::string& m : sweep.metrics) {
    const std::string service = metric_service(m);
    if (!service.empty()) {
      bool found = false;
      for (const ServiceSpec& s : scenario.workload.services) found = found || s.name == service;
      if (!found)
        out.add(InputError(
            sweep.metrics_where, "spec.metrics",
            fmt::format("metric '{}': {} has no service '{}'", m, sweep.base_as_written, service)));
    } else if (m.rfind("cost.", 0) == 0 && scenario.autoscaling.pools.empty()) {
      out.add(InputError(sweep.metrics_where, "spec.metrics",
                         fmt::format("metric '{}': {} has no node pools (spec.autoscaling), so "
                                     "nothing is priced",
                                     m, sweep.base_as_written)));
    }
  }
}

}  // namespace

std::string point_label(const SweepSpec& sweep, const SweepPoint& point) {
  std::string out;
  for (size_t a = 0; a < sweep.axes.size(); ++a)
    out += fmt::format("{}{}={}", a ? ", " : "", sweep.axes[a].name, point.values[a].text);
  return out;
}

std::vector<ScenarioSpec> build_sweep_variants(const SweepSpec& sweep, const TraceLoaders& traces) {
  const std::string base_text = read_text_file(sweep.base);
  // An Experiment already varies its own inputs (pod lists, policies, seeds); its figures are
  // curves, not a run's metrics.
  if (const ConfigNode doc = parse_yaml_document(base_text, sweep.base);
      doc.is_map() && doc.yaml()["kind"] && doc.yaml()["kind"].IsScalar() &&
      doc.yaml()["kind"].Scalar() == "Experiment")
    throw InputError(sweep.base_where, "spec.base",
                     fmt::format("{} is an Experiment; a sweep varies a Scenario (an Experiment "
                                 "lists its own variants, policies and seeds)",
                                 sweep.base_as_written));
  // The base alone first: its own errors are its file's, not the sweep's.
  load_scenario_text(base_text, sweep.base, traces);
  DistinctErrors errors;
  std::vector<ScenarioSpec> variants;
  variants.reserve(sweep.points.size());
  for (const SweepPoint& point : sweep.points) {
    ConfigNode document = parse_yaml_document(base_text, sweep.base);
    YAML::Node root;
    root.reset(document.yaml());
    std::vector<Assignment> assignments;
    bool paths_ok = true;
    for (size_t a = 0; a < sweep.axes.size(); ++a) {
      const SweepAxis& axis = sweep.axes[a];
      try {
        for (const std::vector<PathStep>& concrete : expand_path(root, axis.path)) {
          // An error at a field this value added (an unknown field on the way) is the value's.
          std::vector<PathStep> owned = concrete;
          for (size_t n = 1; n <= concrete.size(); ++n)
            if (!value_at_path(root, {concrete.begin(), concrete.begin() + n}).IsDefined()) {
              owned.resize(n);
              break;
            }
          set_at_path(root, concrete, point.values[a].node);
          assignments.push_back({path_text(owned), &point.values[a]});
        }
      } catch (const std::invalid_argument& e) {
        errors.add(InputError(axis.where, fmt::format("spec.axes[{}].path", a),
                              fmt::format("{} in {}", e.what(), sweep.base_as_written)));
        paths_ok = false;
      }
    }
    if (!paths_ok) continue;
    try {
      ConfigErrors found;
      ScenarioSpec variant;
      if (std::optional<Envelope> envelope = read_envelope(document, {"Scenario"}, found))
        variant = read_scenario(*envelope, traces, found);
      found.throw_if_any({sweep.base});
      grow_load(variant, sweep.growth);
      if (const int64_t jobs = scenario_job_count(variant); jobs > kMaxScenarioJobs)
        errors.add(InputError(
            sweep.growth_where, "spec.growth",
            fmt::format("growth {} makes {} jobs at the point {}; a scenario "
                        "has at most {}",
                        sweep.growth, jobs, point_label(sweep, point), kMaxScenarioJobs)));
      check_metrics(sweep, variant, errors);
      variants.push_back(std::move(variant));
    } catch (const InputErrors& e) {
      report_point_errors(sweep, point, assignments, e, errors);
    }
  }
  errors.throw_if_any();
  return variants;
}

}  // namespace gantry
