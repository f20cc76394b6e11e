#include "tools/gantry/serve_command.hpp"

#include <fmt/format.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <thread>

#include "engine/core/errors.hpp"
#include "engine/store/store_error.hpp"
#include "tools/gantry/action_log_file.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/shipped_data.hpp"
#include "web/server/api_access.hpp"
#include "web/server/api_routes.hpp"
#include "web/server/http_server.hpp"
#include "web/server/loop_call.hpp"
#include "web/server/token_store.hpp"

namespace gantry::cli {

namespace {

namespace fs = std::filesystem;

// How long a stop (SIGTERM, SIGINT) may take before the process exits without finishing it.
constexpr std::chrono::seconds kStopGrace{10};

struct ServeOptions {
  std::string db = "gantry.db";
  std::string listen = "127.0.0.1:8080";
  std::string world = "sim";
  std::string cluster;  // sim: the shipped quickstart.yaml when not given
  web::KubeServeOptions kube;
  double speed = 1;
  std::string pipelines;
  std::string ui;         // empty: the shipped web app (shipped_data.hpp)
  std::string scenarios;  // empty: the shipped scenarios
  std::string tls_cert, tls_key;
  std::string allow_origin;
  uint64_t seed = 1;
  std::string actions;                     // the action log's file; empty: none
  SqliteRunStore::CommitHook runs_commit;  // CliHooks::runs_commit
  int http_threads = 256;                  // civetweb's workers
  int long_polls = 0;                      // distributed sweeps' waits at once; 0: threads / 4
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw GantryError("cannot read " + p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Applies every pipeline file of `dir` as one request (ServeEngine::apply_files(): checked
// together, all or nothing); returns what went wrong, one message (empty when applied). On the
// loop thread.
std::string apply_folder(web::ServeEngine& engine, const std::string& dir) {
  std::vector<PipelineSource> files;
  for (const std::string& file : expand_pipeline_args({dir}))
    files.push_back({file, read_file(file)});
  try {
    bool created = false;
    engine.apply_files(files, false, created);
    return "";
  } catch (const web::ApiError& e) {
    std::string msg = dir + ": " + e.what();
    if (e.body().contains("errors"))
      for (const auto& err : e.body()["errors"])
        msg += fmt::format("\n  {}:{}:{}: {}: {}", err.value("file", ""), err.value("line", 0),
                           err.value("column", 0), err.value("path", ""), err.value("message", ""));
    return msg;
  }
}

void run_serve(const ServeOptions& opt) {
  if (opt.world != "sim" && opt.world != "kube")
    throw GantryError("--world: expected sim or kube, got '" + opt.world + "'");
  // The simulated world's queues are its scenario's (spec.policy.admission of --cluster).
  if (opt.world == "sim" && (!opt.kube.admission_file.empty() || !opt.kube.queue.empty()))
    throw GantryError(
        std::string(opt.kube.admission_file.empty() ? "--queue" : "--admission") +
        ": the simulated world takes its admission queues from the scenario "
        "(spec.policy.admission of --cluster, each job's queue); --admission and --queue are "
        "for --world kube");
  if (!opt.kube.serving_metrics.empty()) {
    if (opt.world != "kube")
      throw GantryError(
          "--serving-metrics: the simulated world computes its services' metrics; the option is "
          "for --world kube");
    const std::string& url = opt.kube.serving_metrics;
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
      throw GantryError("--serving-metrics: expected an http:// or https:// URL, got '" + url +
                        "'");
  }
  // A live cluster runs on real time: its pods do not run faster for asking.
  if (opt.world == "kube" && opt.speed != 1)
    throw GantryError(
        "--speed: a live cluster runs at speed 1 (kubelet-sim takes its own --speed)");
  // Defaults come from beside the program, never from the working directory.
  const std::string cluster = opt.world == "sim" && opt.cluster.empty()
                                  ? (shipped_data().scenarios / "quickstart.yaml").string()
                                  : opt.cluster;
  const std::string ui = opt.ui.empty() ? shipped_data().web_ui.string() : opt.ui;
  const std::string scenarios =
      opt.scenarios.empty() ? shipped_data().scenarios.string() : opt.scenarios;
  if (!(opt.speed > 0) || opt.speed > 1e6)
    throw GantryError("--speed: expected a number above 0 and at most 1000000");
  const auto address = web::split_listen_address(opt.listen);
  if (!address) throw GantryError("--listen: expected host:port, got '" + opt.listen + "'");
  if (!web::is_loopback_host(address->first) && (opt.tls_cert.empty() || opt.tls_key.empty()))
    throw GantryError("--listen " + opt.listen +
                      " is not a loopback address: give --tls-cert and --tls-key");
  if (opt.tls_cert.empty() != opt.tls_key.empty())
    throw GantryError("--tls-cert and --tls-key go together");
  // Opened (and refused) before anything connects or starts.
  std::unique_ptr<ActionLogFile> actions;
  if (!opt.actions.empty()) actions = std::make_unique<ActionLogFile>(opt.actions);

  // Signals go to one thread that waits for them; every other thread (civetweb's, the
  // simulation worker) inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  web::EventBus bus;
  std::function<void(const std::string&)> action_sink;
  if (actions)
    action_sink = [file = actions.get()](const std::string& line) { file->write_line(line); };
  std::unique_ptr<web::ServeEngine> engine;
  try {
    engine = std::make_unique<web::ServeEngine>(web::ServeConfig{.db_path = opt.db,
                                                                 .world = opt.world,
                                                                 .cluster_file = cluster,
                                                                 .speed = opt.speed,
                                                                 .seed = opt.seed,
                                                                 .kube = opt.kube,
                                                                 .log = {},
                                                                 .commit_hook = opt.runs_commit,
                                                                 .action_line = action_sink},
                                                bus);
  } catch (const StoreError& e) {
    throw GantryError(std::string("--db: ") + e.what());
  }
  web::TokenStore tokens(opt.db);
  const fs::path token_file = opt.db + ".token";
  const bool new_token = tokens.ensure_admin(token_file);
  web::SimulationService simulations(bus);
  web::StudyService studies(bus);  // sweeps and plans
  // Distributed sweeps: their long polls take HTTP threads, a share of them at most.
  web::SweepCoordinator coordinator(
      opt.db, tokens, bus,
      {.max_waiters = static_cast<size_t>(opt.long_polls > 0 ? opt.long_polls
                                                             : std::max(1, opt.http_threads / 4))});
  web::AuditLog audit(opt.db);
  web::ApiServer api(tokens, {.ui_root = ui, .allow_origin = opt.allow_origin, .audit = &audit});
  web::add_access_routes(api.router(), tokens, audit);
  web::ApiContext ctx{*engine, simulations, bus, scenarios};
  web::add_pipeline_routes(api.router(), ctx);
  web::add_cluster_routes(api.router(), ctx);
  web::add_sweep_routes(api.router(), studies, scenarios);
  web::add_distributed_sweep_routes(api.router(), coordinator);
  web::add_meta_routes(api, ctx);
  auto server = std::make_unique<web::HttpServer>(
      web::HttpServerOptions{.listen = opt.listen,
                             .threads = opt.http_threads,
                             .tls_cert = opt.tls_cert,
                             .tls_key = opt.tls_key},
      [&api](web::HttpRequest& req) { return api.dispatch(req); });

  engine->start();
  if (!opt.pipelines.empty()) {
    const std::string failed = apply_folder(*engine, opt.pipelines);
    if (!failed.empty()) {
      fmt::print(stderr, "error: {}\n", failed);
      throw GantryError("--pipelines: the folder was not applied");
    }
  }
  fmt::print("gantry serve: {} (database {}, world {}, speed {})\n", server->url(), opt.db,
             engine->world_description(), opt.speed);
  fmt::print("admin token {} {}\n", new_token ? "written to" : "in", token_file.string());
  std::fflush(stdout);

  EventLoop& loop = engine->loop();
  std::thread waiter([&] {
    while (true) {
      int sig = 0;
      if (sigwait(&signals, &sig) != 0) continue;
      if (sig == SIGHUP) {
        if (opt.pipelines.empty()) continue;
        try {
          const std::string failed = web::call_on_loop(
              loop, [&engine, dir = opt.pipelines] { return apply_folder(*engine, dir); });
          if (!failed.empty()) fmt::print(stderr, "error: {}\n", failed);
        } catch (const std::exception& e) {
          fmt::print(stderr, "error: reload: {}\n", e.what());
        }
        continue;
      }
      // Graceful stop: streams end, the listener stops (requests in progress are answered:
      // the loop still runs), then the loop. Whatever runs, the process ends within
      // kStopGrace: past it, it exits at once (every change is committed on its own, so the
      // database is as after kill -9, which a restart continues).
      std::thread([] {
        std::this_thread::sleep_for(kStopGrace);
        fmt::print(stderr,
                   "error: gantry serve: the graceful stop did not finish within {} s; exiting "
                   "now (the database is as after kill -9: a restart continues it)\n",
                   kStopGrace.count());
        std::_Exit(1);
      }).detach();
      bus.close();
      coordinator.close();
      server.reset();
      engine->stop();
      return;
    }
  });
  try {
    engine->run();
  } catch (...) {
    // An error the engine does not handle (a bug): stop as for SIGTERM, so the waiter thread
    // ends (a joinable thread left behind aborted the process), then report it (exit 1).
    ::kill(::getpid(), SIGTERM);
    waiter.join();
    throw;
  }
  waiter.join();
  engine->flush();
  fmt::print("gantry serve: stopped\n");
}

}  // namespace

void add_serve_command(CLI::App& app, const CliHooks& hooks) {
  auto opt = std::make_shared<ServeOptions>();
  opt->runs_commit = hooks.runs_commit;
  CLI::App* cmd = app.add_subcommand("serve", "Run the orchestrator with its REST API and web UI");
  cmd->add_option("--db", opt->db, "The database (created if missing; default gantry.db)");
  cmd->add_option("--listen", opt->listen,
                  "Address to listen on (default 127.0.0.1:8080; port 0 picks one)");
  cmd->add_option("--world", opt->world,
                  "Where tasks run: sim (the simulated cluster of --cluster) or kube (a live "
                  "Kubernetes cluster, --kubeconfig)");
  cmd->add_option(
      "--cluster", opt->cluster,
      "sim: the kind: Scenario whose cluster and workload the tasks share (default: the "
      "shipped quickstart.yaml); kube: the cluster's model, policy, restart delay and "
      "maintenance schedule (optional)");
  cmd->add_option("--kubeconfig", opt->kube.kubeconfig,
                  "kube: kubeconfig (default $KUBECONFIG, else ~/.kube/config)");
  cmd->add_option("--context", opt->kube.context, "kube: context of the kubeconfig");
  cmd->add_option("--namespace", opt->kube.namespace_name,
                  "kube: namespace of the pipelines' pods (default: the context's)");
  cmd->add_option("--scheduler-name", opt->kube.scheduler_name,
                  "kube: the pods' spec.schedulerName this scheduler places (default gantry)");
  cmd->add_flag("--leader-elect", opt->kube.leader_elect,
                "kube: campaign for a Lease; only the leader places pods");
  cmd->add_option("--identity", opt->kube.identity,
                  "kube: this replica's name in Events and the Lease (default host-pid)");
  cmd->add_option("--admission", opt->kube.admission_file,
                  "kube: a kind: Admission file (queues, quotas, cohorts, preemption); pods name "
                  "their queue with the label gantry.dev/queue");
  cmd->add_option("--serving-metrics", opt->kube.serving_metrics,
                  "kube: one Prometheus endpoint with every serving pod's metrics (kubelet-sim's "
                  "--metrics-listen, e.g. http://127.0.0.1:9464/metrics); default: each ready "
                  "serving pod's own :9090/metrics");
  cmd->add_option("--queue", opt->kube.queue,
                  "kube: the admission queue of the pipelines' pods (label gantry.dev/queue); "
                  "with --admission, one of its queues");
  cmd->add_option("--speed", opt->speed,
                  "Simulated seconds per wall second (default 1; 60: a minute a second)");
  cmd->add_option("--pipelines", opt->pipelines,
                  "Apply the pipeline files of this folder, as one, at start and on SIGHUP");
  cmd->add_option(
      "--ui", opt->ui,
      "The built web app (default: the installed share/gantry/web, or web/ui/dist of the "
      "source tree the program was built from)");
  cmd->add_option("--scenarios", opt->scenarios,
                  "The what-if scenarios offered by the UI (default: the installed "
                  "share/gantry/scenarios, or the source tree's scenarios/)");
  cmd->add_option("--tls-cert", opt->tls_cert, "PEM certificate chain (required off loopback)");
  cmd->add_option("--tls-key", opt->tls_key, "PEM private key");
  cmd->add_option("--allow-origin", opt->allow_origin,
                  "Allow this origin cross-site (CORS); none by default");
  cmd->add_option("--seed", opt->seed, "Seed of the simulated task outcomes (default 1)");
  cmd->add_option("--http-threads", opt->http_threads,
                  "HTTP worker threads (default 256); each request, event stream and long poll "
                  "holds one while it lasts")
      ->check(CLI::Range(8, 16384));
  cmd->add_option("--long-polls", opt->long_polls,
                  "Distributed sweeps' long polls waiting at once (default: a quarter of "
                  "--http-threads); one per running pod of a sweep, more are told to retry")
      ->check(CLI::Range(1, 16384));
  cmd->add_option("--actions", opt->actions,
                  "Write every action of the scheduler and every observation of the world to "
                  "FILE as they happen, one JSON object per line (the format of gantry simulate "
                  "--actions)");
  cmd->footer(
      "Example: gantry serve --db gantry.db --listen 127.0.0.1:8080 --cluster "
      "scenarios/quickstart.yaml --speed 60 --pipelines scenarios/pipelines/");
  cmd->callback([opt] { run_serve(*opt); });
}

}  // namespace gantry::cli
