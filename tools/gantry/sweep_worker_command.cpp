#include "tools/gantry/sweep_worker_command.hpp"

#include <fmt/format.h>

#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>

#include "adapters/traces/trace_ref_loader.hpp"
#include "engine/config/config_errors.hpp"
#include "engine/core/errors.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_shards.hpp"
#include "sim/sweep/sweep_variants.hpp"
#include "web/client/sweep_coordinator_client.hpp"

namespace gantry::cli {

namespace {

using web::SweepCoordinatorClient;
using web::SweepServerError;
using web::SweepServerUnreachable;

std::optional<size_t> parse_index(const std::string& text) {
  size_t k = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return k;
}

// The server's refusal of the token, in the words a pod's log needs.
[[noreturn]] void explain(const SweepServerError& e, const std::string& id) {
  if (e.status == 401)
    throw SweepServerError(
        e.status, e.code,
        std::string(e.what()) + " (GANTRY_TOKEN is not a token of sweep " + id + ")");
  throw;
}

// Watches for the sweep's end with long polls, on a thread of its own, until told to stop.
class EndWatch {
 public:
  EndWatch(const SweepWorkerOptions& o) : o_(o) {
    thread_ = std::thread([this] { watch(); });
  }
  ~EndWatch() {
    stop_ = true;  // a long poll in progress gives up within a second (ClientOptions::abandon)
    thread_.join();
  }
  bool cancelled() const { return cancelled_; }

 private:
  void watch() {
    SweepCoordinatorClient client(o_.server, o_.token, o_.ca_file, &stop_);
    while (!stop_) {
      try {
        const web::SweepProgress p = client.wait(o_.sweep, -1, std::chrono::seconds(60));
        if (p.state == "cancelled") {
          cancelled_ = true;
          // The run in progress cannot be interrupted, and its result would not be recorded:
          // stop the process now (nothing of it is kept but what the server holds).
          fmt::print(stderr, "sweep {} was cancelled: shard {} stops\n", o_.sweep, o_.shard);
          std::fflush(stderr);
          std::_Exit(0);
        }
        if (p.state != "running") return;
        if (p.retry_after_ms > 0) {
          // The server has as many long polls as it takes: come back later, not at once.
          for (long long waited = 0; waited < p.retry_after_ms && !stop_; waited += 100)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
      } catch (const std::exception&) {
        // Unreachable, or the sweep ended (410): the posts say so where it matters.
        return;
      }
    }
  }
  const SweepWorkerOptions& o_;
  std::atomic<bool> stop_{false}, cancelled_{false};
  std::thread thread_;
};

int run_shard(const SweepWorkerOptions& o, SweepCoordinatorClient& client) {
  web::SweepShard shard;
  try {
    shard = client.shard(o.sweep, o.shard);
  } catch (const SweepServerError& e) {
    if (e.status == 410) {  // a pod started after the sweep's end: nothing to do
      fmt::print("{}: shard {} has nothing to do\n", e.what(), o.shard);
      return 0;
    }
    explain(e, o.sweep);
  }
  if (shard.state != "running") {
    fmt::print("sweep {} is {}: shard {} has nothing to do\n", o.sweep, shard.state, o.shard);
    return 0;
  }
  const SweepFolder folder(shard.documents);
  SweepSpec sweep;
  std::vector<ScenarioSpec> variants;
  try {
    sweep = load_sweep_text(shard.documents.files.at(shard.documents.sweep), folder.sweep_file());
    variants = build_sweep_variants(sweep, trace_loaders());
  } catch (const InputError& e) {
    // The server checked the same documents: only a different Gantry version gets here.
    throw GantryError(folder.shown(e.what()) +
                      " (the server accepted this sweep: is this worker's image the same Gantry "
                      "version as gantry serve?)");
  }
  const size_t todo = (shard.range.end - shard.range.begin) - shard.recorded.size();
  fmt::print("sweep {} shard {} of {}: runs {} to {}, {} recorded already, {} to run\n", o.sweep,
             o.shard, shard.shards, shard.range.begin, shard.range.end - 1, shard.recorded.size(),
             todo);
  std::fflush(stdout);
  const EndWatch watch(o);
  size_t posted = 0;
  for (size_t run = shard.range.begin; run < shard.range.end; ++run) {
    if (shard.recorded.contains(run)) continue;
    const auto [point, seed_index] = run_at(sweep, run);
    const SweepRunResult r = run_sweep_point(sweep, variants[point], point, seed_index);
    web::PostedRunsAnswer answer;
    try {
      answer = client.post_runs(o.sweep, o.shard, {{run, r.seed, r.fingerprint, r.metrics}});
    } catch (const SweepServerError& e) {
      if (e.status == 409 && e.code == "conflict" &&
          std::string(e.what()).find("cancelled") != std::string::npos) {
        fmt::print("sweep {} was cancelled: shard {} stops\n", o.sweep, o.shard);
        return 0;
      }
      if (e.status == 410) {  // done by the other pods, or cancelled, meanwhile
        fmt::print("{}: shard {} stops\n", e.what(), o.shard);
        return 0;
      }
      explain(e, o.sweep);
    }
    ++posted;
    if (o.posted) o.posted(posted);
    if (answer.state == "cancelled") return 0;
  }
  fmt::print("sweep {} shard {}: done, {} runs posted\n", o.sweep, o.shard, posted);
  return 0;
}

}  // namespace

size_t worker_shard(const std::optional<std::string>& flag, const char* env) {
  if (flag) {
    if (const auto k = parse_index(*flag)) return *k;
    throw GantryError("--shard: expected a whole number from 0, got '" + *flag + "'");
  }
  if (env != nullptr) {
    if (const auto k = parse_index(env)) return *k;
    throw GantryError(std::string("JOB_COMPLETION_INDEX: expected a whole number from 0, got '") +
                      env + "'");
  }
  throw GantryError(
      "which shard? give --shard K, or run in a pod of an Indexed Job (Kubernetes sets "
      "JOB_COMPLETION_INDEX there); neither is given");
}

int run_sweep_worker(const SweepWorkerOptions& o) {
  if (o.token.empty())
    throw GantryError(
        "GANTRY_TOKEN is not set: the worker needs the sweep's token (gantry sweep "
        "--on kubernetes puts it in the Job's Secret)");
  SweepCoordinatorClient client(o.server, o.token, o.ca_file);
  try {
    return run_shard(o, client);
  } catch (const SweepServerUnreachable& e) {
    throw GantryError(std::string(e.what()) +
                      " (--server must be the URL at which the pods reach gantry serve)");
  } catch (const SweepServerError& e) {
    throw;  // the server knows: it said so
  } catch (const std::exception& e) {
    // The user must see why the shard failed, beside the sweep: tell the server.
    const std::string message = fmt::format("shard {} failed: {}", o.shard, e.what());
    try {
      client.report_failure(o.sweep, o.shard, message);
    } catch (const std::exception& report) {
      throw GantryError(message + " (and reporting it to " + o.server +
                        " failed: " + report.what() + ")");
    }
    throw GantryError(message);
  }
}

void add_sweep_worker_command(CLI::App& app, const CliHooks& hooks) {
  auto opt = std::make_shared<SweepWorkerOptions>();
  auto shard = std::make_shared<std::optional<std::string>>();
  opt->posted = hooks.sweep_run_posted;
  CLI::App* cmd = app.add_subcommand(
      "sweep-worker",
      "Run one shard of a distributed sweep for gantry serve (a pod of the sweep's Indexed Job)");
  cmd->add_option("--sweep", opt->sweep, "The sweep's id (gantry sweep --on kubernetes made it)")
      ->required();
  cmd->add_option("--server", opt->server,
                  "gantry serve's URL, as the pods reach it (https://gantry.example)")
      ->required();
  cmd->add_option("--shard", *shard,
                  "The shard to run, from 0 (default: $JOB_COMPLETION_INDEX, which Kubernetes "
                  "sets in each pod of an Indexed Job)");
  cmd->add_option("--ca-file", opt->ca_file, "Verify an https server against this CA");
  cmd->footer(
      "Example: gantry sweep-worker --sweep sw-1-k3x9qa --server https://gantry.example --shard 0");
  cmd->callback([opt, shard] {
    opt->shard = worker_shard(*shard, std::getenv("JOB_COMPLETION_INDEX"));
    if (const char* token = std::getenv("GANTRY_TOKEN")) opt->token = token;
    const int code = run_sweep_worker(*opt);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace gantry::cli
