#include "tools/gantry/kube_commands.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <filesystem>
#include <map>
#include <memory>
#include <thread>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/kube_config.hpp"
#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/kubelet_sim/default_scheduler_sim.hpp"
#include "adapters/kube/kubelet_sim/job_controller_sim.hpp"
#include "adapters/kube/kubelet_sim/kubelet_sim.hpp"
#include "adapters/kube/kubelet_sim/serving_sim.hpp"
#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/request_bodies.hpp"
#include "adapters/kube/world/snapshot.hpp"
#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/config/units.hpp"
#include "engine/core/clock.hpp"
#include "engine/core/errors.hpp"
#include "sim/fault_events.hpp"
#include "sim/scenario_loader.hpp"
#include "tools/gantry/kube_target.hpp"

namespace gantry::cli {

namespace {

struct KubeletSimCommand {
  KubeTarget target;
  std::string cluster;
  double speed = 1;
  std::string events;  // a fault events file (sim/fault_events.hpp)
  // Simulated load on serving pods (adapters/kube/kubelet_sim/serving_sim.hpp): SERVICE=QPS...
  std::vector<std::string> serving_loads;
  std::string metrics_listen = "127.0.0.1:9400";
  // A rehearsal of real workloads (adapters/kube/README.md, "Jobs in a rehearsal").
  bool exec = false;
  std::string exec_logs;
  std::vector<std::string> exec_commands;  // NAME=PATH
  std::vector<std::string> unpullable_images;
  bool job_controller = false;
  bool default_scheduler = false;
};

void run_kubelet_sim(const KubeletSimCommand& opt) {
  if (opt.cluster.empty()) throw GantryError("--cluster: a kind: Scenario file is required");
  if (!(opt.speed > 0) || opt.speed > 1e6)
    throw GantryError("--speed: expected a number above 0 and at most 1000000");
  const ScenarioSpec scenario = load_scenario_file(opt.cluster, trace_loaders());
  kube::KubeClient client(load_target(opt.target));

  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  EventLoop loop(std::make_unique<WallClock>(WallClock().now(), opt.speed));
  kube::ApiWorkers workers(8);
  if (!opt.exec_logs.empty() && !opt.exec)
    throw GantryError("--exec-logs: only with --exec (the logs are those of the processes run)");
  if (!opt.exec_logs.empty() && !std::filesystem::is_directory(opt.exec_logs))
    throw GantryError("--exec-logs: " + opt.exec_logs + " is not a directory");
  std::map<std::string, std::string> exec_commands;
  for (const std::string& c : opt.exec_commands) {
    const size_t eq = c.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == c.size())
      throw GantryError("--exec-command: expected NAME=PATH, got \"" + c + "\"");
    exec_commands[c.substr(0, eq)] = c.substr(eq + 1);
  }
  if (!exec_commands.empty() && !opt.exec) throw GantryError("--exec-command: only with --exec");
  kube::KubeletSim kubelet(client, workers, loop, scenario.topology,
                           {.pod_startup = scenario.sim.pod_startup,
                            .speed = opt.speed,
                            .exec = opt.exec,
                            .exec_log_dir = opt.exec_logs,
                            .exec_commands = exec_commands,
                            .unpullable_images = opt.unpullable_images});
  if (!opt.events.empty()) {
    // Durations in the file count from now (kubelet-sim's start), not the scenario's start.
    std::vector<InputError> skipped;
    std::vector<FaultEvent> events =
        load_fault_events(opt.events, scenario.topology, loop.now(), std::nullopt, &skipped);
    for (const InputError& e : skipped) fmt::print(stderr, "warning: {}\n", e.what());
    fmt::print("gantry kubelet-sim: {} fault events from {}\n", events.size(), opt.events);
    kubelet.schedule_faults(std::move(events));
  }
  try {
    kubelet.start();
  } catch (const kube::KubeError& e) {
    throw GantryError(std::string("registering the nodes with ") + client.config().server + ": " +
                      e.what());
  } catch (const kube::KubeTransportError& e) {
    throw GantryError(std::string("registering the nodes with ") + client.config().server + ": " +
                      e.what());
  }
  fmt::print("gantry kubelet-sim: {} nodes of {} registered with {} (speed {})\n",
             kubelet.stats().nodes_registered, opt.cluster, client.config().server, opt.speed);
  // Serving: Deployments of gantry.dev/service get pods, and their simulated load is served on
  // a Prometheus endpoint for the live autoscaler (`gantry serve --world kube`).
  std::unique_ptr<kube::ServingSim> serving;
  if (!opt.serving_loads.empty()) {
    kube::ServingSimOptions so;
    for (const std::string& l : opt.serving_loads) so.loads.push_back(kube::parse_serving_load(l));
    so.seed = scenario.seed;
    so.metrics_listen = opt.metrics_listen;
    serving = std::make_unique<kube::ServingSim>(client, workers, loop, std::move(so));
    serving->start();
    fmt::print("gantry kubelet-sim: serving metrics at {}\n", serving->metrics_url());
  }
  // Stand-ins for what a plain API server lacks (kube-controller-manager's Job controller,
  // kube-scheduler), only when asked: a real cluster has its own.
  std::unique_ptr<kube::JobControllerSim> jobs;
  if (opt.job_controller) {
    jobs = std::make_unique<kube::JobControllerSim>(client, workers, loop);
    jobs->start();
    fmt::print("gantry kubelet-sim: Indexed Jobs run by a stand-in for the Job controller\n");
  }
  std::unique_ptr<kube::DefaultSchedulerSim> scheduler;
  if (opt.default_scheduler) {
    std::vector<std::string> nodes;
    for (const NodeInfo& n : scenario.topology.nodes) nodes.push_back(n.name);
    scheduler = std::make_unique<kube::DefaultSchedulerSim>(
        client, workers, loop, std::move(nodes),
        [&kubelet](const std::string& node) { return !kubelet.node_down(node); });
    scheduler->start();
    fmt::print(
        "gantry kubelet-sim: pods of default-scheduler bound by a stand-in for kube-scheduler\n");
  }
  if (opt.exec)
    fmt::print("gantry kubelet-sim: --exec: pods' commands run as local processes here\n");
  std::fflush(stdout);
  std::thread waiter([&] {
    int sig = 0;
    while (sigwait(&signals, &sig) != 0) {
    }
    loop.stop();
  });
  loop.run();
  waiter.join();
  if (serving) serving->stop();
  if (scheduler) scheduler->stop();
  if (jobs) jobs->stop();
  kubelet.stop();
  workers.wait_idle();
  const kube::KubeletSimStats s = kubelet.stats();
  // Pods lost to injected faults only when there were faults to inject (--events).
  const std::string lost =
      opt.events.empty() ? std::string() : fmt::format(" (lost to faults {})", s.pods_lost);
  fmt::print("gantry kubelet-sim: stopped; pods started {}, succeeded {}, failed {}{}\n",
             s.pods_started, s.pods_succeeded, s.pods_failed, lost);
}

struct SnapshotCommand {
  KubeTarget target;
  std::string name = "snapshot";
};

void run_snapshot(const SnapshotCommand& opt) {
  kube::KubeClient client(load_target(opt.target));
  kube::SnapshotInput in;
  in.name = opt.name;
  in.source = client.config().server;
  in.now = WallClock().now();
  // Lists page by page (500 a page), as an informer's first list does.
  const auto list = [&](const std::string& path, auto&& each) {
    std::string token;
    do {
      std::string q = path + "?limit=500";
      if (!token.empty()) q += "&continue=" + token;
      const nlohmann::json page = client.get(q);
      for (const nlohmann::json& item : page.value("items", nlohmann::json::array())) each(item);
      token = page.value("metadata", nlohmann::json::object()).value("continue", "");
    } while (!token.empty());
  };
  size_t skipped = 0;
  int64_t usable = 0;
  list("/api/v1/nodes", [&](const nlohmann::json& n) {
    try {
      in.nodes.push_back(kube::parse_node(n));
      if (in.nodes.back().ready && !in.nodes.back().unschedulable)
        kube::check_snapshot_nodes(++usable, in.source);
    } catch (const InputError& e) {
      ++skipped;
      fmt::print(stderr, "warning: {}\n", e.what());
    }
  });
  list("/api/v1/pods", [&](const nlohmann::json& p) {
    try {
      in.pods.push_back(kube::parse_pod(p));
    } catch (const InputError& e) {
      ++skipped;
      fmt::print(stderr, "warning: {}\n", e.what());
    }
  });
  fmt::print("{}", kube::snapshot_scenario(in));
  fmt::print(stderr, "gantry snapshot: {} nodes, {} pods read from {}{}\n", in.nodes.size(),
             in.pods.size(), in.source,
             skipped ? fmt::format(" ({} objects skipped)", skipped) : std::string());
}

struct DrainCommand {
  KubeTarget target;
  std::string node;
  std::string deadline = "0s";
  std::string maintenance;  // --for
};

// Writes the node's drain request (model/kube_node.hpp) for the leader of `gantry serve
// --world kube` to carry out; does not wait for it.
void run_drain(const DrainCommand& opt) {
  // The flags first: a mistake in them is refused before anything connects.
  Duration deadline, maintenance;
  if (const std::string e = kube::check_drain_duration(opt.deadline, false, deadline); !e.empty())
    throw GantryError("--deadline: " + e);
  if (const std::string e = kube::check_drain_duration(opt.maintenance, true, maintenance);
      !e.empty())
    throw GantryError("--for: " + e);
  kube::KubeClient client(load_target(opt.target));
  const std::string requested = kube::format_micro_time(WallClock().now());
  const nlohmann::json patch =
      kube::annotations_patch({{std::string(kube::kDrainRequestAnnotation),
                                kube::drain_request_value(deadline, maintenance, requested)}});
  try {
    client.patch("/api/v1/nodes/" + opt.node, patch, kube::PatchType::kMerge);
  } catch (const kube::KubeError& e) {
    if (e.code() == 404)
      throw GantryError("node '" + opt.node + "' not found on " + client.config().server);
    throw GantryError("writing the drain request of node " + opt.node + " to " +
                      client.config().server + ": " + e.what());
  } catch (const kube::KubeTransportError& e) {
    throw GantryError("writing the drain request of node " + opt.node + " to " +
                      client.config().server + ": " + e.what());
  }
  fmt::print(
      "gantry kube drain: drain of {} requested (deadline {}, maintenance {}, requested {}); the "
      "leader of gantry serve --world kube carries it out and writes its progress to the "
      "node's {} annotation\n",
      opt.node, format_duration_exact(deadline), format_duration_exact(maintenance), requested,
      kube::kDrainStateAnnotation);
}

struct SetupCommand {
  KubeTarget target;
  std::vector<std::string> namespaces;  // empty: the context's
};

// Makes the object at `collection`/`name` unless it exists: looked at first (so that a user
// who may read but not create it is not refused for nothing), created only on a 404. A create
// answered 409 AlreadyExists (made meanwhile, by a controller) counts as there. Prints one line,
// "<what> created" or "<what> exists"; throws GantryError naming `what` and the server.
void ensure(kube::KubeClient& client, const std::string& what, const std::string& collection,
            const std::string& name, const nlohmann::json& body) {
  const std::string& server = client.config().server;
  bool absent = false;
  try {
    client.get(collection + "/" + name);
  } catch (const kube::KubeError& e) {
    if (e.code() != 404)
      throw GantryError(fmt::format("reading {} on {}: {}", what, server, kube::failure_words(e)));
    absent = true;
  } catch (const kube::KubeTransportError& e) {
    throw GantryError(fmt::format("reading {} on {}: {}", what, server, kube::failure_words(e)));
  }
  bool created = false;
  if (absent) {
    try {
      created = client.create(collection, body).outcome == kube::WriteOutcome::kOk;
    } catch (const std::exception& e) {
      throw GantryError(fmt::format("creating {} on {}: {}", what, server, kube::failure_words(e)));
    }
  }
  fmt::print("gantry kube setup: {} {}\n", what, created ? "created" : "exists");
  std::fflush(stdout);
}

// What a plain API server (kube-apiserver without kube-controller-manager, as in a rehearsal)
// lacks for `gantry serve --world kube` and `gantry kubelet-sim`: each namespace of the
// pipelines' pods, and its ServiceAccount "default", which pods run as and which only the
// ServiceAccount controller makes. Idempotent.
void run_setup(const SetupCommand& opt) {
  kube::KubeClient client(load_target(opt.target));
  std::vector<std::string> namespaces = opt.namespaces;
  if (namespaces.empty()) namespaces.push_back(client.config().namespace_name);
  for (const std::string& ns : namespaces) {
    ensure(client, "namespace " + ns, "/api/v1/namespaces", ns, kube::namespace_body(ns));
    ensure(client, "serviceaccount " + ns + "/default",
           "/api/v1/namespaces/" + ns + "/serviceaccounts", "default",
           kube::service_account_body(ns, "default"));
  }
}

}  // namespace

void add_kube_commands(CLI::App& app) {
  auto sim = std::make_shared<KubeletSimCommand>();
  CLI::App* k = app.add_subcommand(
      "kubelet-sim", "Play a scenario's nodes against a Kubernetes API server (no GPUs needed)");
  add_target_options(k, sim->target);
  k->add_option("--cluster", sim->cluster, "A kind: Scenario whose nodes to register")->required();
  k->add_option("--speed", sim->speed, "Simulated seconds per wall second (default 1)");
  k->add_option("--serving-load", sim->serving_loads,
                "Simulated requests on a service's pods: SERVICE=QPS[:SERVICE_TIME[:periodic]] "
                "(repeatable); their metrics are served at --metrics-listen");
  k->add_option("--metrics-listen", sim->metrics_listen,
                "Address of the serving metrics endpoint (default 127.0.0.1:9400; port 0: any)");
  k->add_option("--events", sim->events,
                "Fault events to play (the file of gantry simulate --events; durations count "
                "from kubelet-sim's start)");
  k->add_flag("--exec", sim->exec,
              "Run each pod's container command as a local process (the image is ignored: a "
              "rehearsal of the real thing, not a simulation of it)");
  k->add_option(
      "--exec-logs", sim->exec_logs,
      "With --exec: write each container's output to DIR/<namespace>_<pod>_<container>.log");
  k->add_option("--exec-command", sim->exec_commands,
                "With --exec: run NAME (a container's command) as PATH, where the image would have "
                "had it, e.g. gantry=/usr/local/bin/gantry (repeatable)");
  k->add_option("--unpullable-image", sim->unpullable_images,
                "Images starting with PREFIX cannot be pulled: their pods wait in ErrImagePull / "
                "ImagePullBackOff (repeatable)");
  k->add_flag("--job-controller", sim->job_controller,
              "Run Indexed Jobs with a stand-in for kube-controller-manager's Job controller (for "
              "an API server without one; never against a real cluster)");
  k->add_flag("--default-scheduler", sim->default_scheduler,
              "Bind pods of schedulerName default-scheduler to these nodes in turn, a stand-in for "
              "kube-scheduler (no fit checked; for an API server without one)");
  k->footer(
      "Example: gantry kubelet-sim --kubeconfig ~/.kube/config --cluster "
      "scenarios/quickstart.yaml");
  k->callback([sim] { run_kubelet_sim(*sim); });

  auto snap = std::make_shared<SnapshotCommand>();
  CLI::App* s = app.add_subcommand(
      "snapshot", "Write a live cluster's nodes and running pods as a Scenario (stdout)");
  add_target_options(s, snap->target);
  s->add_option("--name", snap->name, "metadata.name of the scenario (default snapshot)");
  s->footer("Example: gantry snapshot --kubeconfig ~/.kube/config > twin.yaml");
  s->callback([snap] { run_snapshot(*snap); });

  CLI::App* kube = app.add_subcommand(
      "kube", "Prepare a cluster for gantry serve --world kube, or ask a running one to act");
  kube->footer("Example: gantry kube setup --kubeconfig ~/.kube/config");
  kube->require_subcommand(1);
  auto drain = std::make_shared<DrainCommand>();
  CLI::App* d = kube->add_subcommand(
      "drain",
      "Request a drain of NODE: cordoned, Gantry's pods left to end until --deadline, the rest "
      "evicted, the node under maintenance --for, then uncordoned (by the server's leader)");
  add_target_options(d, drain->target);
  d->add_option("node", drain->node, "The node to drain")->required();
  d->add_option("--deadline", drain->deadline,
                "How long running pods may go on before they are evicted (default 0s: at once)");
  d->add_option("--for", drain->maintenance,
                "How long the node stays out of service once empty (e.g. 4h)")
      ->required();
  d->footer(
      "Example: gantry kube drain r1-n003 --deadline 2h --for 4h --kubeconfig ~/.kube/config");
  d->callback([drain] { run_drain(*drain); });

  auto setup = std::make_shared<SetupCommand>();
  CLI::App* u = kube->add_subcommand(
      "setup",
      "Create what a plain API server lacks for live mode, unless it exists: the namespace of "
      "the pipelines' pods and its ServiceAccount default");
  add_target_options(u, setup->target);
  u->add_option("--namespace", setup->namespaces,
                "A namespace to set up (repeatable; default: the context's, where gantry serve "
                "--world kube puts its pods)");
  u->footer("Example: gantry kube setup --kubeconfig ~/.kube/config");
  u->callback([setup] { run_setup(*setup); });
}

}  // namespace gantry::cli
