#include "tools/gantry/kube_sweep_job.hpp"

#include <fmt/format.h>

#include <chrono>
#include <iostream>
#include <set>
#include <thread>

#include "adapters/kube/sweep_job_launcher.hpp"
#include "engine/core/errors.hpp"
#include "tools/gantry/progress_bar.hpp"
#include "web/server/yaml_json.hpp"

namespace gantry::cli {

namespace {

kube::SweepJobSpec job_spec(const KubeSweepOptions& o, const kube::KubeConfig& config,
                            const std::string& id, int64_t shards) {
  kube::SweepJobSpec spec;
  spec.namespace_name = o.namespace_name.empty() ? config.namespace_name : o.namespace_name;
  spec.sweep_id = id;
  spec.image = o.image;
  spec.server = o.worker_server.empty() ? server_url(o.server) : o.worker_server;
  spec.shards = shards;
  spec.parallelism = std::min(o.parallelism, shards);
  spec.backoff_limit_per_index = o.backoff_limit_per_index;
  spec.ttl_seconds_after_finished = o.ttl_seconds_after_finished;
  spec.cpu = o.cpu;
  spec.memory = o.memory;
  return spec;
}

int64_t shards_for(const KubeSweepOptions& o, size_t runs) {
  const int64_t wanted = o.shards > 0 ? o.shards : o.parallelism;
  return std::max<int64_t>(1, std::min<int64_t>(wanted, static_cast<int64_t>(runs)));
}

// A Job condition of `type` with status True, or null.
nlohmann::json true_condition(const nlohmann::json& job, const std::string& type) {
  for (const nlohmann::json& c :
       job.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array()))
    if (c.value("type", "") == type && c.value("status", "") == "True") return c;
  return nullptr;
}

// The kubeconfig of a command whose pods have an image (checked first: the cheaper mistake).
kube::KubeConfig checked_target(const KubeSweepOptions& o) {
  require_image(o);
  return load_target(o.target);
}

}  // namespace

void add_kube_sweep_flags(CLI::App* cmd, KubeSweepOptions& o, const std::string& detach_help) {
  add_server_flags(cmd, o.server);
  cmd->add_option("--worker-server", o.worker_server,
                  "The server's URL as the pods reach it (default: --server)");
  add_target_options(cmd, o.target);
  cmd->add_option("--namespace", o.namespace_name,
                  "Namespace of the Job (default: the kubeconfig context's)");
  cmd->add_option("--image", o.image, "Image with gantry on its PATH, for the shards' pods");
  cmd->add_option("--parallelism", o.parallelism, "Shards' pods running at once")
      ->check(CLI::Range(int64_t{1}, int64_t{10000}));
  cmd->add_option("--shards", o.shards, "Shards (default: --parallelism; at most one per run)")
      ->check(CLI::Range(int64_t{1}, int64_t{100000}));
  cmd->add_option("--cpu", o.cpu, "CPU request and limit of a shard's pod");
  cmd->add_option("--memory", o.memory, "Memory request and limit of a shard's pod");
  cmd->add_option("--backoff-limit-per-index", o.backoff_limit_per_index,
                  "Retries of one failed shard")
      ->check(CLI::Range(int64_t{0}, int64_t{100}));
  cmd->add_option("--ttl", o.ttl_seconds_after_finished,
                  "Seconds the finished Job (and its pods) stay on the cluster")
      ->check(CLI::Range(int64_t{0}, int64_t{31536000}));
  cmd->add_flag("--dry-run", o.dry_run, "Print the Job and Secret as YAML; create nothing");
  cmd->add_flag("--detach", o.detach, detach_help);
}

void require_image(const KubeSweepOptions& o) {
  if (o.image.empty()) throw GantryError("--image: the shards' pods need an image with gantry");
}

void print_dry_run_job(const KubeSweepOptions& o, size_t runs, const std::string& command) {
  kube::KubeConfig config;
  if (o.namespace_name.empty()) config = load_target(o.target);
  const kube::SweepJobSpec spec = job_spec(o, config, "ID", shards_for(o, runs));
  std::cout << "# " << command
            << " --dry-run: nothing was created. gantry serve gives the sweep its\n"
               "# id (in place of ID) and the workers' token when the sweep is submitted.\n"
            << web::json_to_yaml(kube::sweep_job_body(spec)) << "---\n"
            << web::json_to_yaml(
                   kube::sweep_secret_body(spec, "TOKEN-FROM-GANTRY-SERVE", "JOB-UID"));
}

KubeSweepSession::KubeSweepSession(const KubeSweepOptions& o)
    : o_(o),
      config_(checked_target(o)),
      server_(server_url(o.server), server_token(o.server)),
      cluster_(config_) {}

LaunchedSweepJob KubeSweepSession::launch(const SweepDocuments& documents, size_t runs) {
  LaunchedSweepJob out;
  out.submitted = server_.submit(documents, static_cast<size_t>(shards_for(o_, runs)));
  out.url = server_.server_url() + out.submitted.url;
  out.spec = job_spec(o_, config_, out.submitted.id, static_cast<int64_t>(out.submitted.shards));
  try {
    const kube::LaunchedSweepJob job =
        kube::launch_sweep_job(cluster_, out.spec, out.submitted.token);
    fmt::print(stderr, "sweep {}: {} runs in {} shards, Job {}/{} ({} pods at once)\n",
               out.submitted.id, out.submitted.runs, out.submitted.shards, out.spec.namespace_name,
               job.job_name, out.spec.parallelism);
  } catch (...) {
    // Nothing will run it: do not leave it waiting on the server.
    try {
      server_.cancel(out.submitted.id);
    } catch (const std::exception&) {
    }
    throw;
  }
  return out;
}

nlohmann::json KubeSweepSession::wait(const LaunchedSweepJob& job, const std::string& title,
                                      bool no_progress) {
  const std::string& id = job.submitted.id;
  ProgressBar bar(title, !no_progress);
  std::set<std::string> shown;  // pod problems printed already
  long long done = 0;
  const std::string job_path = "/apis/batch/v1/namespaces/" + job.spec.namespace_name + "/jobs/" +
                               kube::sweep_job_name(job.spec.sweep_id);
  while (true) {
    const web::SweepProgress p = server_.wait(id, done, std::chrono::seconds(10));
    done = static_cast<long long>(p.done);
    bar.update(p.total == 0 ? 1.0 : static_cast<double>(p.done) / static_cast<double>(p.total));
    if (p.state == "done") break;
    if (p.state == "cancelled") throw GantryError("sweep " + id + " was cancelled");
    // What the cluster knows about the shards, shown once each.
    const std::vector<std::string> problems = kube::sweep_pod_problems(
        kube::list_sweep_pods(cluster_, job.spec.namespace_name, job.spec.sweep_id));
    const nlohmann::json failed = true_condition(cluster_.get(job_path), "Failed");
    if (!failed.is_null()) {
      // The error lists every problem of the pods, the ones shown while waiting too: it is
      // what the user reads last.
      std::string message = fmt::format("the Job of sweep {} failed ({}): {}", id,
                                        failed.value("reason", ""), failed.value("message", ""));
      for (const std::string& problem : problems) message += "\n  " + problem;
      throw GantryError(message + "\nThe runs that finished are kept on the server: " + job.url);
    }
    for (const std::string& problem : problems)
      if (shown.insert(problem).second) fmt::print(stderr, "\n{}\n", problem);
    if (p.retry_after_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(p.retry_after_ms));
  }
  bar.finish();
  return server_.get(id);
}

}  // namespace gantry::cli
