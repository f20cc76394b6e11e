// Conformance (issue #11, "the point of this issue"): one scenario run twice — in the
// simulator, and in live mode through the adapter against the fake API server with kubelet-sim
// playing the nodes — must place every pod of every job on the same node and the same GPUs,
// at the same instant.
//
// The scenario is tests/data/scenarios/conformance.yaml (8 nodes in 2 racks, 60 jobs of 1 to
// 16 GPUs, topology placement). The live run gets the same arrivals and the same job
// lifetimes as the simulator computed them: a submitter creates each job's pods at its submit
// time (gang label = the job's name, gang-index = the simulator's pod order, the requests of
// its roles), and each pod's gantry.dev/simulate-duration makes it end when the simulated job
// ended (end − bind − the scenario's pod start-up, which kubelet-sim applies first). What is
// compared is what the policies decided in each world: the simulator's action log against the
// live scheduler's decisions.
//
// The live cluster is prepared as an operator would a real one (the fake API server answers as
// kube-apiserver v1.24 does): the namespace created, a PriorityClass per job priority, and the
// pods created through the API (POST: admission and defaults), their priority named by
// priorityClassName. The simulator's evictions take no time, so the pods ask for none
// (terminationGracePeriodSeconds 0: the API server deletes them at once, without waiting for
// their kubelet); with the default 30 s a real cluster finishes each eviction 30 s later.

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "adapters/kube/executor/kube_task_executor.hpp"
#include "adapters/kube/model/quantity.hpp"
#include "adapters/kube/world/kube_world.hpp"
#include "adapters/simcluster/cluster_task_executor.hpp"
#include "sim/fault_events.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/simulation.hpp"
#include "sim/world_builder.hpp"
#include "tests/adapters/kube/world/live_stack.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"
#include "workflow/runner/memory_run_store.hpp"
#include "workflow/runner/run_scheduler.hpp"
#include "workflow/runner/simulated_executor.hpp"

namespace gantry::kube {
namespace conformance_test {

const std::string kScenario =
    std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/conformance.yaml";
const char* kPods = "/api/v1/namespaces/conformance/pods";

std::string priority_class(int32_t priority) { return "priority-" + std::to_string(priority); }

// The namespace and a PriorityClass for each priority of `jobs`, created as an operator
// creates them before the jobs come.
void prepare_cluster(KubeClient& client, const std::vector<JobSpec>& jobs) {
  ASSERT_EQ(client
                .create("/api/v1/namespaces", {{"apiVersion", "v1"},
                                               {"kind", "Namespace"},
                                               {"metadata", {{"name", "conformance"}}}})
                .outcome,
            WriteOutcome::kOk);
  std::set<int32_t> priorities;
  for (const JobSpec& job : jobs) priorities.insert(job.priority);
  for (const int32_t priority : priorities)
    ASSERT_EQ(client
                  .create("/apis/scheduling.k8s.io/v1/priorityclasses",
                          {{"apiVersion", "scheduling.k8s.io/v1"},
                           {"kind", "PriorityClass"},
                           {"metadata", {{"name", priority_class(priority)}}},
                           {"value", priority}})
                  .outcome,
              WriteOutcome::kOk);
}

// Creates `pods` as their controller does: POST, each answered 201.
void submit(KubeClient& client, const std::vector<nlohmann::json>& pods) {
  for (const nlohmann::json& p : pods)
    EXPECT_EQ(client.create(kPods, p).outcome, WriteOutcome::kOk) << p["metadata"]["name"];
}

// "<t> <job> pod <i> -> <node> [gpus]", one per pod placed, in time then job then pod order.
using Placements = std::vector<std::string>;

std::string line(Time t, const std::string& job, int pod, const std::string& node,
                 const std::vector<int>& gpus) {
  std::string g;
  for (int i : gpus) g += (g.empty() ? "" : ",") + std::to_string(i);
  return format_rfc3339(t) + " " + job + " pod " + std::to_string(pod) + " -> " + node + " [" + g +
         "]";
}

struct SimOutcome {
  SimulationRun run;
  Placements placements;
};

SimOutcome simulate(const ScenarioSpec& scenario) {
  std::ostringstream actions;
  SimOutcome out{run_simulation(scenario, {}, &actions), {}};
  std::istringstream in(actions.str());
  for (std::string l; std::getline(in, l);) {
    const nlohmann::json j = nlohmann::json::parse(l);
    if (j["kind"] != "bind") continue;
    Time t;
    EXPECT_TRUE(parse_rfc3339(j["t"].get<std::string>(), t));
    const std::string& job = out.run.jobs[j["workload"].get<size_t>()].name;
    for (const auto& p : j["pods"])
      out.placements.push_back(
          line(t, job, p["pod"], p["node"], p["gpus"].get<std::vector<int>>()));
  }
  std::sort(out.placements.begin(), out.placements.end());
  return out;
}

// The pods of job `j` as a controller would create them, each to run for `run` once started.
std::vector<nlohmann::json> pods_of(const JobSpec& job, Duration run) {
  std::vector<nlohmann::json> out;
  const std::vector<Resources> requests = job.pod_requests();
  for (size_t i = 0; i < requests.size(); ++i) {
    const Resources& r = requests[i];
    nlohmann::json req = {{"cpu", format_cpu_quantity(r.cpu_milli)},
                          {"memory", std::to_string(r.memory_bytes)}};
    if (r.gpus > 0) req["nvidia.com/gpu"] = std::to_string(r.gpus);
    nlohmann::json annotations = {
        {"gantry.dev/gang-size", std::to_string(requests.size())},
        {"gantry.dev/gang-index", std::to_string(i)},
        {"gantry.dev/simulate-duration", std::to_string(run.micros()) + "us"}};
    if (job.elastic.enabled()) {
      annotations["gantry.dev/elastic-min"] = std::to_string(job.elastic.min_replicas);
      annotations["gantry.dev/elastic-max"] = std::to_string(job.elastic.max_replicas);
    }
    nlohmann::json labels = {{"gantry.dev/gang", job.name}};
    if (!job.queue.empty()) labels["gantry.dev/queue"] = job.queue;
    out.push_back({{"apiVersion", "v1"},
                   {"kind", "Pod"},
                   {"metadata",
                    {{"name", job.name + "-" + std::to_string(i)},
                     {"namespace", "conformance"},
                     {"labels", labels},
                     {"annotations", annotations}}},
                   {"spec",
                    {{"schedulerName", "gantry"},
                     {"priorityClassName", priority_class(job.priority)},
                     {"terminationGracePeriodSeconds", 0},
                     {"containers",
                      {{{"name", "main"},
                        {"image", "registry.local/train:1"},
                        {"resources", {{"requests", req}, {"limits", req}}}}}}}}});
  }
  return out;
}

TEST(Conformance, TheSimulatorAndTheLiveAdapterPlaceEveryPodAlike) {
  const ScenarioSpec scenario = load_scenario_file(kScenario);
  const SimOutcome sim = simulate(scenario);
  ASSERT_EQ(sim.run.jobs.size(), 60u);
  ASSERT_EQ(sim.run.queued_at_end, 0u) << "every job ran in the simulator";

  testing::LiveStack live(scenario.start, scenario.topology, scenario.policy,
                          scenario.sim.pod_startup, "conformance");
  testing::FakeApiServer& fake = live.fake;
  EventLoop* loop = live.loop.get();
  prepare_cluster(live.client, sim.run.jobs);

  // The submitter: each job's pods at its submit time.
  for (size_t j = 0; j < sim.run.jobs.size(); ++j) {
    const JobSpec& job = sim.run.jobs[j];
    const JobLog& log = sim.run.log.jobs[j];
    ASSERT_TRUE(log.bound && log.finished) << job.name;
    std::vector<nlohmann::json> pods =
        pods_of(job, *log.finished - *log.bound - scenario.sim.pod_startup);
    loop->schedule_at(job.submit,
                      [&client = live.client, pods = std::move(pods)] { submit(client, pods); });
  }
  live.harness.run_until(sim.run.end + hours(1));

  Placements placed;
  for (const PlacementDecision& d : live.world.scheduler().decisions()) {
    const nlohmann::json pod = *fake.get(kPods, d.pod.substr(d.pod.find('/') + 1));
    placed.push_back(
        line(d.at, pod["metadata"]["labels"]["gantry.dev/gang"],
             std::stoi(pod["metadata"]["annotations"]["gantry.dev/gang-index"].get<std::string>()),
             d.node, d.gpus));
  }
  std::sort(placed.begin(), placed.end());
  ASSERT_EQ(placed.size(), sim.placements.size());
  for (size_t i = 0; i < placed.size(); ++i)
    ASSERT_EQ(placed[i], sim.placements[i]) << "first difference at placement " << i;
  // Every pod ran to its end in the live world too.
  EXPECT_EQ(live.kubelet.stats().pods_succeeded, static_cast<int64_t>(placed.size()));
}

// Admission with preemption in both worlds: tests/data/scenarios/conformance-preemption.yaml (a
// cohort reclaiming its lent quota, then a high-priority job preempting its own queue's newest).
// The live world gets the pods as above, labelled with their queue and carrying the job's
// priority; a controller (here, an informer of the test's) recreates an evicted pod under its
// name at once, as a training operator does, to run for what the simulator's next incarnation of
// the job ran (end − that bind − start-up). Compared: every bind, every eviction decided (reason
// and preemptor) and every eviction reported done, with workloads named by their job, at the
// same instants.
const std::string kPreemptionScenario =
    std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/conformance-preemption.yaml";

// The bind, evict and evicted lines of an action log, workloads (and preemptors) by name,
// sorted (actions at one instant are compared as a set: the live world reports an eviction when
// the informer shows its pods gone, after the decisions of that cycle).
std::vector<std::string> admission_actions(const std::string& log,
                                           const std::function<std::string(JobId)>& name) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string l; std::getline(in, l);) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(l);
    const std::string kind = j["kind"];
    if (kind != "bind" && kind != "evict" && kind != "evicted") continue;
    j["workload"] = name(j["workload"].get<JobId>());
    if (j.contains("by")) j["by"] = name(j["by"].get<JobId>());
    out.push_back(j.dump());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Conformance, PreemptionsAreTheSameInBothWorlds) {
  const ScenarioSpec scenario = load_scenario_file(kPreemptionScenario);
  std::ostringstream sim_log;
  const SimulationRun sim = run_simulation(scenario, {}, &sim_log);
  ASSERT_EQ(sim.jobs.size(), 4u);
  ASSERT_EQ(sim.queued_at_end, 0u) << "every job ran to its end in the simulator";
  const auto sim_name = [&](JobId id) { return sim.jobs[static_cast<size_t>(id)].name; };
  const std::vector<std::string> simulated = admission_actions(sim_log.str(), sim_name);
  // The scenario's point: both kinds of preemption happen (by hand: b-big borrows team-a's 8
  // GPUs until a-two reclaims them at 00:10; a-urgent, which may not borrow, preempts a-two, the
  // most recently admitted of its queue's lower-priority jobs, at 00:30).
  const auto has = [&](const std::string& needle) {
    return std::any_of(simulated.begin(), simulated.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  };
  ASSERT_TRUE(has(
      R"("t":"2026-01-05T08:10:00Z","kind":"evict","workload":"b-big","reason":"InCohortReclamation","by":"a-two")"));
  ASSERT_TRUE(has(
      R"("t":"2026-01-05T08:30:00Z","kind":"evict","workload":"a-two","reason":"Preempted","by":"a-urgent")"));

  // Each job's binds in the simulator, in order: incarnation k of its pods runs from the k-th.
  std::map<std::string, std::vector<Time>> binds;
  {
    std::istringstream in(sim_log.str());
    for (std::string l; std::getline(in, l);) {
      const nlohmann::json j = nlohmann::json::parse(l);
      if (j["kind"] != "bind") continue;
      Time t;
      ASSERT_TRUE(parse_rfc3339(j["t"].get<std::string>(), t));
      binds[sim_name(j["workload"].get<JobId>())].push_back(t);
    }
  }
  const auto run_of = [&](const JobSpec& job, size_t incarnation) {
    const std::vector<Time>& b = binds.at(job.name);
    const Time from = b.at(std::min(incarnation, b.size() - 1));
    return *sim.log.jobs[static_cast<size_t>(&job - sim.jobs.data())].finished - from -
           scenario.sim.pod_startup;
  };

  testing::LiveStack live(scenario.start, scenario.topology, scenario.policy,
                          scenario.sim.pod_startup, "conformance");
  std::ostringstream live_log;
  ActionLog log(live_log, live.world.cluster().cluster());
  live.world.scheduler().set_action_log(&log);
  testing::FakeApiServer& fake = live.fake;
  EventLoop* loop = live.loop.get();
  prepare_cluster(live.client, sim.jobs);

  // The controller: an evicted pod comes back under its name, as its next incarnation.
  std::map<std::string, size_t> incarnation;  // by pod name
  InformerOptions watched;
  watched.path = kPods;
  watched.dispatch = [loop](std::function<void()> fn) { loop->post(std::move(fn)); };
  Informer controller(live.client, watched);
  controller.add_handler([&](const InformerEvent& e) {
    if (e.type != InformerEventType::kDeleted) return;
    const std::string pod = e.object["metadata"]["name"];
    const std::string gang = e.object["metadata"]["labels"]["gantry.dev/gang"];
    const auto job = std::find_if(sim.jobs.begin(), sim.jobs.end(),
                                  [&](const JobSpec& j) { return j.name == gang; });
    const size_t index =
        std::stoul(e.object["metadata"]["annotations"]["gantry.dev/gang-index"].get<std::string>());
    submit(live.client, {pods_of(*job, run_of(*job, ++incarnation[pod])).at(index)});
  });
  controller.start();
  ASSERT_TRUE(controller.wait_for_sync());
  live.harness.add(controller, kPods);
  fake.wait_for_watches_started(4);

  for (const JobSpec& job : sim.jobs) {
    std::vector<nlohmann::json> pods = pods_of(job, run_of(job, 0));
    loop->schedule_at(job.submit,
                      [&client = live.client, pods = std::move(pods)] { submit(client, pods); });
  }
  live.harness.run_until(sim.end + hours(1));
  controller.stop();
  live.world.scheduler().set_action_log(nullptr);

  const auto live_name = [&](JobId id) {
    const std::string& gang = live.world.scheduler().gang_name(id);
    return gang.substr(gang.find('/') + 1);
  };
  const std::vector<std::string> played = admission_actions(live_log.str(), live_name);
  ASSERT_EQ(played.size(), simulated.size()) << live_log.str();
  for (size_t i = 0; i < played.size(); ++i) EXPECT_EQ(played[i], simulated[i]) << "line " << i;
  EXPECT_EQ(live.world.scheduler().failed_evictions(), 0u);
}

// A node failure in both worlds: tests/data/scenarios/conformance-faults.yaml with the fault
// events of conformance-faults-events.yaml, given to the simulator (TrainingWorld::
// schedule_faults) and to kubelet-sim (schedule_faults, what `--events` does). kubelet-sim fails
// the pods of the lost node (NodeLost, exit code 137) and marks it not ready; the live world
// kills their gangs with reason NodeFailure, deletes their pods, and a controller (the test's
// informer) recreates them under their names, to run for what the simulator's next incarnation
// ran. Compared: every bind (nodes and GPUs) and every eviction reported (job, instant, reason,
// and when it may be placed again), with workloads named by their job.
const std::string kFaultsScenario =
    std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/conformance-faults.yaml";
const std::string kFaultsEvents =
    std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/conformance-faults-events.yaml";

struct FaultSim {
  std::vector<JobSpec> jobs;
  SimulationLog log;
  std::string actions;
  Time end;
};

FaultSim simulate_with_faults(const ScenarioSpec& scenario, std::vector<FaultEvent> events) {
  std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(scenario.start);
  std::unique_ptr<SimulatedWorld> sim = build_world(scenario, *loop);
  std::ostringstream actions;
  ActionLog log(actions, *sim->cluster);
  sim->world->set_action_log(&log);
  sim->world->schedule_faults(std::move(events));
  sim->world->start();
  loop->run();
  FaultSim out;
  out.log = sim->world->take_log();
  out.jobs = std::move(sim->jobs);
  out.actions = actions.str();
  out.end = loop->now();
  return out;
}

// The bind and evicted lines of an action log, workloads by name, sorted.
std::vector<std::string> fault_actions(const std::string& log,
                                       const std::function<std::string(JobId)>& name) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string l; std::getline(in, l);) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(l);
    const std::string kind = j["kind"];
    if (kind != "bind" && kind != "evicted") continue;
    j["workload"] = name(j["workload"].get<JobId>());
    out.push_back(j.dump());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Conformance, ANodeFailureIsTheSameInBothWorlds) {
  const ScenarioSpec scenario = load_scenario_file(kFaultsScenario);
  const std::vector<FaultEvent> events =
      load_fault_events(kFaultsEvents, scenario.topology, scenario.start, std::nullopt);
  ASSERT_EQ(events.size(), 2u);
  const FaultSim sim = simulate_with_faults(scenario, events);
  ASSERT_EQ(sim.jobs.size(), 4u);
  const auto sim_name = [&](JobId id) { return sim.jobs[static_cast<size_t>(id)].name; };
  const std::vector<std::string> simulated = fault_actions(sim.actions, sim_name);
  for (const JobLog& j : sim.log.jobs) ASSERT_TRUE(j.finished) << j.spec->name;
  const auto has = [&](const std::string& needle) {
    return std::any_of(simulated.begin(), simulated.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  };
  // The scenario's point, by hand: binpack puts wide (2 × 8 GPUs) on ra-n000 and ra-n001 at
  // 08:00, so ra-n001's failure at 08:30 kills it (NodeFailure), and it may be placed again
  // after the 2-minute restart delay, at 08:32.
  ASSERT_TRUE(has(
      R"("t":"2026-01-05T08:30:00Z","kind":"evicted","workload":"wide","reason":"NodeFailure","notBefore":"2026-01-05T08:32:00Z")"))
      << ::testing::PrintToString(simulated);
  ASSERT_STREQ(kReasonNodeFailure, "NodeFailure");
  // Placed again at 08:32 on the two nodes with 8 free GPUs: ra-n000 (its own pod there was
  // killed) and rb-n001 (rb-n000 has small's 4 GPUs, ra-n001 is down).
  ASSERT_TRUE(has(
      R"("t":"2026-01-05T08:32:00Z","kind":"bind","workload":"wide","pods":[{"pod":0,"node":"ra-n000","gpus":[0,1,2,3,4,5,6,7],"gpuMilli":0},{"pod":1,"node":"rb-n001")"));
  // after needs three whole nodes: only once ra-n001 is back at 09:30 (wide has ended by then).
  ASSERT_TRUE(has(R"("t":"2026-01-05T09:30:00Z","kind":"bind","workload":"after")"));

  // Each job's binds in the simulator, in order: incarnation k of its pods runs from the k-th.
  std::map<std::string, std::vector<Time>> binds;
  {
    std::istringstream in(sim.actions);
    for (std::string l; std::getline(in, l);) {
      const nlohmann::json j = nlohmann::json::parse(l);
      if (j["kind"] != "bind") continue;
      Time t;
      ASSERT_TRUE(parse_rfc3339(j["t"].get<std::string>(), t));
      binds[sim_name(j["workload"].get<JobId>())].push_back(t);
    }
  }
  ASSERT_EQ(binds.at("wide").size(), 2u) << "wide runs twice";
  const auto run_of = [&](const JobSpec& job, size_t incarnation) {
    const std::vector<Time>& b = binds.at(job.name);
    const Time from = b.at(std::min(incarnation, b.size() - 1));
    return *sim.log.jobs[static_cast<size_t>(&job - sim.jobs.data())].finished - from -
           scenario.sim.pod_startup;
  };

  testing::LiveStack live(scenario.start, scenario.topology, scenario.policy,
                          scenario.sim.pod_startup, "conformance", scenario.sim.restart_delay);
  live.kubelet.schedule_faults(events);
  std::ostringstream live_log;
  ActionLog log(live_log, live.world.cluster().cluster());
  live.world.scheduler().set_action_log(&log);
  testing::FakeApiServer& fake = live.fake;
  EventLoop* loop = live.loop.get();
  prepare_cluster(live.client, sim.jobs);

  // The controller: a deleted pod comes back under its name, as its next incarnation.
  std::map<std::string, size_t> incarnation;  // by pod name
  InformerOptions watched;
  watched.path = kPods;
  watched.dispatch = [loop](std::function<void()> fn) { loop->post(std::move(fn)); };
  Informer controller(live.client, watched);
  controller.add_handler([&](const InformerEvent& e) {
    if (e.type != InformerEventType::kDeleted) return;
    const std::string pod = e.object["metadata"]["name"];
    const std::string gang = e.object["metadata"]["labels"]["gantry.dev/gang"];
    const auto job = std::find_if(sim.jobs.begin(), sim.jobs.end(),
                                  [&](const JobSpec& j) { return j.name == gang; });
    const size_t index =
        std::stoul(e.object["metadata"]["annotations"]["gantry.dev/gang-index"].get<std::string>());
    submit(live.client, {pods_of(*job, run_of(*job, ++incarnation[pod])).at(index)});
  });
  controller.start();
  ASSERT_TRUE(controller.wait_for_sync());
  live.harness.add(controller, kPods);
  fake.wait_for_watches_started(4);

  for (const JobSpec& job : sim.jobs) {
    std::vector<nlohmann::json> pods = pods_of(job, run_of(job, 0));
    loop->schedule_at(job.submit,
                      [&client = live.client, pods = std::move(pods)] { submit(client, pods); });
  }
  live.harness.run_until(sim.end + hours(1));
  controller.stop();
  live.world.scheduler().set_action_log(nullptr);

  const auto live_name = [&](JobId id) {
    const std::string& gang = live.world.scheduler().gang_name(id);
    return gang.substr(gang.find('/') + 1);
  };
  const std::vector<std::string> played = fault_actions(live_log.str(), live_name);
  ASSERT_EQ(played.size(), simulated.size()) << live_log.str();
  for (size_t i = 0; i < played.size(); ++i) EXPECT_EQ(played[i], simulated[i]) << "line " << i;
  EXPECT_EQ(live.kubelet.stats().pods_lost, 1) << "wide's pod on ra-n001";
  EXPECT_EQ(live.kubelet.stats().faults_applied, 2);
  // The node's failure and recovery were reported to the policies.
  const std::string text = live_log.str();
  EXPECT_NE(text.find(R"("kind":"node-failed")"), std::string::npos) << text;
}

// A resize in both worlds: tests/data/scenarios/conformance-resize.yaml, its elastic job resized
// to 5 Workers at 00:10 and to 2 at 00:20 by an explicit resize (Scheduler::resize and
// TrainingWorld::apply in the simulator, LiveScheduler::resize live, which creates, binds and
// deletes pods through the API server). Compared: every bind and every resize decided (job,
// replicas, removed pod ids, added pod ids, nodes and GPUs), with workloads named by their job,
// up to 02:00 (the elastic job runs on; the others end). The live world reports kResized once
// the new pods run (5 s later), the simulator at once: the instants of "resized" differ and are
// not compared.
const std::string kResizeScenario =
    std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/conformance-resize.yaml";

std::vector<std::string> resize_actions(const std::string& log,
                                        const std::function<std::string(JobId)>& name) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string l; std::getline(in, l);) {
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(l);
    const std::string kind = j["kind"];
    if (kind != "bind" && kind != "resize") continue;
    j["workload"] = name(j["workload"].get<JobId>());
    out.push_back(j.dump());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Conformance, AResizeIsTheSameInBothWorlds) {
  const ScenarioSpec scenario = load_scenario_file(kResizeScenario);
  const Time grow = scenario.start + minutes(10);
  const Time shrink = scenario.start + minutes(20);
  const Time until = scenario.start + hours(2);

  std::vector<JobSpec> jobs;
  SimulationLog sim_log;
  std::string sim_actions;
  {
    std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(scenario.start);
    std::unique_ptr<SimulatedWorld> sim = build_world(scenario, *loop);
    std::ostringstream actions;
    ActionLog log(actions, *sim->cluster);
    sim->world->set_action_log(&log);
    const auto resize_at = [&](Time t, int replicas) {
      loop->schedule_at(t, [&sim, &loop, replicas] {
        Result<std::optional<ResizeAction>> r =
            sim->scheduler->resize(*sim->cluster, 0, replicas, loop->now(), "Test");
        ASSERT_TRUE(r && r.value()) << (r ? "waits" : r.error());
        ASSERT_TRUE(sim->world->apply(*r.value()));
      });
    };
    resize_at(grow, 5);
    resize_at(shrink, 2);
    sim->world->start();
    loop->run_until(until);
    sim_log = sim->world->take_log();
    jobs = std::move(sim->jobs);
    sim_actions = actions.str();
  }
  ASSERT_EQ(jobs.size(), 3u);
  ASSERT_EQ(jobs[0].name, "elastic");
  const auto sim_name = [&](JobId id) { return jobs[static_cast<size_t>(id)].name; };
  const std::vector<std::string> simulated = resize_actions(sim_actions, sim_name);
  const auto has = [&](const std::string& needle) {
    return std::any_of(simulated.begin(), simulated.end(),
                       [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  };
  // By hand (binpack): elastic's two pods fill ra-n000, small takes ra-n001's GPUs 0-3; the
  // three new Workers (ids 2, 3, 4) go to ra-n001's GPUs 4-7, then rb-n000; the scale-in removes
  // the three highest ids; wide then has rack rb to itself at 00:25.
  ASSERT_TRUE(has(
      R"("t":"2026-01-05T08:10:00Z","kind":"resize","workload":"elastic","replicas":5,"pods":[{"pod":2,"node":"ra-n001","gpus":[4,5,6,7])"))
      << ::testing::PrintToString(simulated);
  ASSERT_TRUE(has(
      R"("t":"2026-01-05T08:20:00Z","kind":"resize","workload":"elastic","replicas":2,"removed":[2,3,4])"))
      << ::testing::PrintToString(simulated);
  ASSERT_TRUE(has(
      R"("t":"2026-01-05T08:25:00Z","kind":"bind","workload":"wide","pods":[{"pod":0,"node":"rb-n000")"))
      << ::testing::PrintToString(simulated);

  const auto run_of = [&](size_t j) {
    const JobLog& log = sim_log.jobs[j];
    if (!log.finished) return hours(100);
    return *log.finished - *log.bound - scenario.sim.pod_startup;
  };
  testing::LiveStack live(scenario.start, scenario.topology, scenario.policy,
                          scenario.sim.pod_startup, "conformance");
  std::ostringstream live_log;
  ActionLog log(live_log, live.world.cluster().cluster());
  live.world.scheduler().set_action_log(&log);
  testing::FakeApiServer& fake = live.fake;
  EventLoop* loop = live.loop.get();
  prepare_cluster(live.client, jobs);
  for (size_t j = 0; j < jobs.size(); ++j) {
    std::vector<nlohmann::json> pods = pods_of(jobs[j], run_of(j));
    loop->schedule_at(jobs[j].submit,
                      [&client = live.client, pods = std::move(pods)] { submit(client, pods); });
  }
  LiveScheduler& scheduler = live.world.scheduler();
  // Not a structured binding: clang 14 (the sanitized build's) cannot capture one.
  for (const auto& step : {std::pair{grow, 5}, std::pair{shrink, 2}})
    loop->schedule_at(step.first, [&scheduler, replicas = step.second] {
      const std::optional<JobId> job = scheduler.workload_of("conformance/elastic");
      ASSERT_TRUE(job);
      ASSERT_TRUE(scheduler.resize(*job, replicas, "Test"));
    });
  live.harness.run_until(until);
  live.world.scheduler().set_action_log(nullptr);

  const auto live_name = [&](JobId id) {
    const std::string& gang = live.world.scheduler().gang_name(id);
    return gang.substr(gang.find('/') + 1);
  };
  const std::vector<std::string> played = resize_actions(live_log.str(), live_name);
  ASSERT_EQ(played.size(), simulated.size()) << live_log.str();
  for (size_t i = 0; i < played.size(); ++i) EXPECT_EQ(played[i], simulated[i]) << "line " << i;
  EXPECT_EQ(live.world.scheduler().resizes_done(), 2u);
  EXPECT_EQ(live.world.scheduler().resizes_failed(), 0u);
  // What the API server holds: the two Workers left and their host list.
  EXPECT_TRUE(fake.get(kPods, "elastic-0"));
  EXPECT_TRUE(fake.get(kPods, "elastic-1"));
  for (const char* gone : {"elastic-worker-2", "elastic-worker-3", "elastic-worker-4"})
    EXPECT_FALSE(fake.get(kPods, gone)) << gone;
  const auto hosts = fake.get("/api/v1/namespaces/conformance/configmaps", "elastic-hosts");
  ASSERT_TRUE(hosts);
  EXPECT_EQ((*hosts)["data"]["hostfile"], "elastic-0 slots=4\nelastic-1 slots=4\n");
}

// The same pipeline run by the orchestrator in both worlds: in the simulator, distributed
// tasks as gang jobs of the simulated cluster and container tasks as simulated containers
// (what `gantry pipeline run --cluster` does); live, every task as pods created by
// KubeTaskExecutor, placed by the live scheduler and played by kubelet-sim. With pods running
// as soon as they are bound (the scenario's podStartup 0s), the three hourly runs must have
// the same timeline: every attempt asked for, running and ended at the same instants, in the
// same states.
const std::string kPipelineScenario =
    std::string(GANTRY_SOURCE_DIR) + "/tests/data/scenarios/conformance-pipeline.yaml";
const std::string kPipeline =
    std::string(GANTRY_SOURCE_DIR) + "/tests/data/pipelines/conformance.yaml";

std::vector<std::string> timeline_of(const RunScheduler& scheduler) {
  const auto t = [](const std::optional<Time>& x) {
    return x ? format_rfc3339(*x) : std::string("-");
  };
  std::vector<std::string> out;
  for (const Run& run : scheduler.timeline()) {
    out.push_back(run.pipeline + " " + format_rfc3339(run.logical_time) + " " +
                  std::string(to_string(run.state)) + " " + t(run.start) + " " + t(run.end));
    for (const TaskInstance& task : run.tasks) {
      std::string line = "  " + task.name + " " + std::string(to_string(task.state));
      for (const Attempt& a : task.attempts)
        line += " [" + std::string(to_string(a.state)) + " " + format_rfc3339(a.start) + " " +
                t(a.running) + " " + t(a.end) + "]";
      out.push_back(line);
    }
  }
  return out;
}

TEST(Conformance, APipelineHasTheSameTimelineInBothWorlds) {
  const ScenarioSpec scenario = load_scenario_file(kPipelineScenario);
  const PipelineSpec pipeline = load_pipeline_files({kPipeline}).pipelines.at(0);
  const Time until = scenario.start + hours(3) - seconds(1);  // the runs of 08, 09 and 10 h

  std::vector<std::string> simulated;
  {
    std::unique_ptr<EventLoop> loop = EventLoop::virtual_time(scenario.start);
    std::unique_ptr<SimulatedWorld> sim = build_world(starting_at(scenario, loop->now()), *loop);
    SimulatedExecutor containers(*loop, 1);
    ClusterTaskExecutor executor(*sim->world, containers);
    sim->world->start();
    MemoryRunStore store;
    RunScheduler scheduler(*loop, store, executor);
    scheduler.add_pipeline(pipeline);
    scheduler.switch_on();
    loop->run_until(until);
    simulated = timeline_of(scheduler);
  }

  testing::LiveStack live(scenario.start, scenario.topology, scenario.policy,
                          scenario.sim.pod_startup, "conformance");
  prepare_cluster(live.client, {});
  KubeExecutorOptions eo;
  eo.plan.namespace_name = "conformance";
  eo.plan.scheduler_name = "gantry";
  KubeTaskExecutor executor(*live.loop, live.client, std::move(eo));
  live.harness.add(executor.workers());
  live.harness.add(executor.informer(), "/api/v1/namespaces/conformance/pods", "",
                   "app.kubernetes.io/managed-by=gantry");
  ASSERT_TRUE(executor.wait_for_sync());
  live.fake.wait_for_watches_started(4);
  MemoryRunStore store;
  RunScheduler scheduler(*live.loop, store, executor);
  scheduler.add_pipeline(pipeline);
  scheduler.switch_on();
  live.harness.run_until(until);
  const std::vector<std::string> played = timeline_of(scheduler);

  ASSERT_EQ(simulated.size(), 15u) << "3 runs of 4 tasks, one attempt each";
  ASSERT_EQ(played.size(), simulated.size());
  for (size_t i = 0; i < played.size(); ++i) EXPECT_EQ(played[i], simulated[i]) << "line " << i;
}

}  // namespace conformance_test
}  // namespace gantry::kube
