// Conformance of serving (issue #14, "the same autoscaler runs in both worlds"): the services of
// tests/data/scenarios/conformance-serving.yaml run in the simulator and in live mode — each
// predictor a Deployment and a Service (LiveServing), kubelet-sim's Deployment stand-in making
// the pods, the live scheduler placing them, kubelet-sim running their cold starts — must take
// the same autoscaler decisions, at the same instants, from the same replica counts.
//
// What the two worlds cannot share is the requests themselves: the live world reads its
// metrics from the serving pods' Prometheus endpoints, which here are not there. So the live
// world is given, at each scrape, what the simulator's requests left as counters at that
// instant (the "observed" of the simulator's "scale" lines): one series for the predictor, the
// exact integrals the pods' counters would sum to (serving_metric_names.hpp). The namespace is
// created first, as on a real cluster. What is compared
// is then everything that is the worlds' own: when replicas are asked for, created, placed,
// started, cold-started (image and model caches per node), made ready, and removed, and what
// the autoscaler makes of that on the same metrics. The metric path itself (exposition, parser,
// scraper over HTTP, buckets) is tested in tests/adapters/kube/serving.

#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <sstream>

#include "adapters/kube/kubelet_sim/deployment_sim.hpp"
#include "adapters/kube/serving/live_serving.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"

namespace gantry::kube {
namespace conformance_serving_test {

const std::string kScenario =
    std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/conformance-serving.yaml";
constexpr const char* kNamespace = "conformance";

// "<t> <service>/<predictor> ready <r> starting <s>: <from> -> <to>", one per autoscaler tick.
std::string decision_line(Time t, const std::string& service, const std::string& predictor,
                          int ready, int starting, int from, int to) {
  return format_rfc3339(t) + " " + service + "/" + predictor + " ready " + std::to_string(ready) +
         " starting " + std::to_string(starting) + ": " + std::to_string(from) + " -> " +
         std::to_string(to);
}

struct SimDecisions {
  std::vector<std::string> lines;
  // service/predictor -> tick -> the predictor's counters then.
  std::map<std::string, std::map<Time, PodCounters>> counters;
};

SimDecisions simulate(const ScenarioSpec& scenario) {
  std::ostringstream actions;
  run_simulation(scenario, {}, &actions);
  SimDecisions out;
  std::istringstream in(actions.str());
  for (std::string l; std::getline(in, l);) {
    const nlohmann::json j = nlohmann::json::parse(l);
    if (j["kind"] != "scale") continue;
    Time t;
    EXPECT_TRUE(parse_rfc3339(j["t"].get<std::string>(), t));
    const std::string service = j["service"];
    const std::string predictor = j["predictor"];
    out.lines.push_back(
        decision_line(t, service, predictor, j["ready"], j["starting"], j["from"], j["to"]));
    const nlohmann::json& o = j["observed"];
    out.counters[service + "/" + predictor][t] = PodCounters{
        o["requests"], o["concurrencySeconds"], o["gpuBusySeconds"], o["slotsBusySeconds"]};
  }
  return out;
}

// The simulator's counters at the scrape's instant, as one series of the predictor; zero at
// the start (the baseline round). An instant the simulator did not tick at is a failed scrape,
// counted, so that the test sees it.
class ReplayScraper final : public MetricsScraper {
 public:
  ReplayScraper(Time start, std::map<std::string, std::map<Time, PodCounters>> counters)
      : start_(start), counters_(std::move(counters)) {}
  ScrapeResult scrape(const ScrapeRequest& r) override {
    ScrapeResult out;
    if (r.at == start_) {
      out.ok = true;
      out.pods["replay"] = PodCounters{};
      return out;
    }
    const auto series = counters_.find(r.service + "/" + r.predictor);
    if (series != counters_.end()) {
      if (const auto at = series->second.find(r.at); at != series->second.end()) {
        out.ok = true;
        out.pods["replay"] = at->second;
        return out;
      }
    }
    std::lock_guard lock(mutex_);
    missed_.push_back(format_rfc3339(r.at) + " " + r.service + "/" + r.predictor);
    return out;
  }
  std::vector<std::string> missed() const {
    std::lock_guard lock(mutex_);
    return missed_;
  }

 private:
  Time start_;
  std::map<std::string, std::map<Time, PodCounters>> counters_;
  mutable std::mutex mutex_;
  std::vector<std::string> missed_;
};

TEST(ServingConformance, TheSameServicesScaleAtTheSameInstantsInBothWorlds) {
  const ScenarioSpec scenario = load_scenario_file(kScenario);
  const SimDecisions sim = simulate(scenario);
  ASSERT_FALSE(sim.lines.empty());

  testing::LiveStack live(scenario.start, scenario.topology, scenario.policy,
                          scenario.sim.pod_startup);
  live.fake.create_namespace(kNamespace);
  ReplayScraper scraper(scenario.start, sim.counters);
  ApiWorkers deployment_workers(2);
  ApiWorkers serving_workers(2);
  DeploymentSim deployments(live.client, deployment_workers, *live.loop,
                            {.namespace_name = kNamespace});
  // The simulator frees a replica's GPU the moment it scales in; the live pods ask for no grace
  // period to do the same (with the API server's default, a replica scaled in keeps its GPU
  // for 30 s, until kubelet-sim confirms its deletion).
  LiveServing serving(live.client, serving_workers, *live.loop, scraper,
                      LiveServingOptions{.objects = {.namespace_name = kNamespace,
                                                     .termination_grace_seconds = 0}});
  for (const ServiceSpec& s : scenario.workload.services) serving.add_service(s);
  deployments.start();
  serving.start();
  live.harness.add(deployment_workers);
  live.harness.add(serving_workers);
  live.harness.add(deployments.deployment_informer(), deployments.deployments_path(), "",
                   std::string(kServingSelector));
  live.harness.add(deployments.pod_informer(), deployments.pods_path(), "",
                   std::string(kServingSelector));
  live.harness.add(serving.pod_informer(),
                   std::string("/api/v1/namespaces/") + kNamespace + "/pods", "",
                   std::string(kServingSelector));
  const_cast<Informer&>(deployments.deployment_informer()).wait_for_sync();
  const_cast<Informer&>(serving.pod_informer()).wait_for_sync();
  live.fake.wait_for_watches_started(3 + 3);
  live.harness.settle();
  live.harness.run_until(scenario.start + *scenario.horizon);
  serving.stop();
  deployments.stop();

  std::vector<std::string> live_lines;
  for (const ScaleDecision& d : serving.decisions()) {
    EXPECT_TRUE(d.scraped) << format_rfc3339(d.at) << " " << d.service << "/" << d.predictor;
    live_lines.push_back(decision_line(d.at, d.service, d.predictor, d.counts.ready,
                                       d.counts.starting, d.counts.desired, d.desired));
  }
  EXPECT_TRUE(scraper.missed().empty()) << scraper.missed().front();
  // Both in time order; within an instant the simulator ticks a service's predictors in
  // order and the live world its timers in the order they were set: sort both.
  std::vector<std::string> sim_lines = sim.lines;
  std::sort(sim_lines.begin(), sim_lines.end());
  std::sort(live_lines.begin(), live_lines.end());
  // The first difference, rather than two lists of 1,280 lines.
  const auto [s, l] =
      std::mismatch(sim_lines.begin(), sim_lines.end(), live_lines.begin(), live_lines.end());
  EXPECT_TRUE(s == sim_lines.end() && l == live_lines.end())
      << "simulator: " << (s == sim_lines.end() ? "(end)" : *s) << "\n"
      << "live:      " << (l == live_lines.end() ? "(end)" : *l);
  EXPECT_EQ(sim_lines.size(), live_lines.size());

  // The scenario is not a quiet one: it scales up and down, and replicas start while others run.
  int changes = 0;
  for (const std::string& line : sim_lines) {
    const size_t colon = line.rfind(": ");
    const std::string from_to = line.substr(colon + 2);
    const size_t arrow = from_to.find(" -> ");
    if (from_to.substr(0, arrow) != from_to.substr(arrow + 4)) ++changes;
  }
  EXPECT_GE(changes, 20);
}

}  // namespace conformance_serving_test
}  // namespace gantry::kube
