#include "tools/gantry/sweep_on_kubernetes.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>
#include <set>
#include <thread>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/sweep_job.hpp"
#include "adapters/kube/sweep_job_launcher.hpp"
#include "engine/config/reader.hpp"
#include "engine/core/errors.hpp"
#include "engine/store/replacement_file.hpp"
#include "sim/sweep/sweep_documents.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "tools/gantry/progress_bar.hpp"
#include "web/client/sweep_coordinator_client.hpp"
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

// --dry-run: the objects as YAML, nothing contacted but the kubeconfig file (for the namespace).
void print_dry_run(const std::string& file, const KubeSweepOptions& o) {
  const SweepSpec sweep = load_sweep_text(read_text_file(file), file);
  const size_t runs = sweep.points.size() * static_cast<size_t>(sweep.seeds);
  kube::KubeConfig config;
  if (o.namespace_name.empty()) config = load_target(o.target);
  const kube::SweepJobSpec spec = job_spec(o, config, "ID", shards_for(o, runs));
  std::cout << "# gantry sweep --dry-run: nothing was created. gantry serve gives the sweep its\n"
               "# id (in place of ID) and the workers' token when the sweep is submitted.\n"
            << web::json_to_yaml(kube::sweep_job_body(spec)) << "---\n"
            << web::json_to_yaml(
                   kube::sweep_secret_body(spec, "TOKEN-FROM-GANTRY-SERVE", "JOB-UID"));
}

// A Job condition of `type` with status True, or null.
nlohmann::json true_condition(const nlohmann::json& job, const std::string& type) {
  for (const nlohmann::json& c :
       job.value("status", nlohmann::json::object()).value("conditions", nlohmann::json::array()))
    if (c.value("type", "") == type && c.value("status", "") == "True") return c;
  return nullptr;
}

void print_result(const nlohmann::json& sweep, const std::string& format, const std::string& dir,
                  const std::string& url) {
  make_output_dir("--out", dir);
  std::vector<std::string> charts;
  for (const nlohmann::json& c : sweep.value("charts", nlohmann::json::array())) {
    const std::string path = (std::filesystem::path(dir) / c.value("name", "chart.svg")).string();
    write_file_atomically(path, c.value("svg", ""));
    charts.push_back(path);
  }
  if (format == "json") {
    nlohmann::json result = sweep.value("result", nlohmann::json::object());
    result["results"] = url;
    result["charts"] = charts;
    std::cout << result.dump(2) << "\n";
    return;
  }
  std::cout << sweep.value("report", "") << "\n";
  std::cout << fmt::format("  results     {}\n", url);
  for (const std::string& c : charts) std::cout << fmt::format("  plot        {}\n", c);
}

}  // namespace

void add_kube_sweep_flags(CLI::App* cmd, KubeSweepOptions& o) {
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
  cmd->add_flag("--detach", o.detach, "Return once the Job is created, with the sweep's URL");
}

void run_sweep_on_kubernetes(const std::string& file, const KubeSweepOptions& o,
                             const std::string& format, const std::string& out_dir,
                             bool no_progress) {
  if (o.image.empty()) throw GantryError("--image: the shards' pods need an image with gantry");
  if (o.dry_run) {
    print_dry_run(file, o);
    return;
  }
  const SweepDocuments documents = collect_sweep_documents(file);
  const SweepSpec sweep = load_sweep_text(documents.files.at(documents.sweep), file);
  const size_t runs = sweep.points.size() * static_cast<size_t>(sweep.seeds);
  const kube::KubeConfig config = load_target(o.target);
  web::SweepCoordinatorClient server(server_url(o.server), server_token(o.server));
  const web::SweepSubmission submitted =
      server.submit(documents, static_cast<size_t>(shards_for(o, runs)));
  const std::string url = server.server_url() + submitted.url;
  const kube::SweepJobSpec spec =
      job_spec(o, config, submitted.id, static_cast<int64_t>(submitted.shards));
  kube::KubeClient cluster(config);
  try {
    const kube::LaunchedSweepJob job = kube::launch_sweep_job(cluster, spec, submitted.token);
    fmt::print(stderr, "sweep {}: {} runs in {} shards, Job {}/{} ({} pods at once)\n",
               submitted.id, submitted.runs, submitted.shards, spec.namespace_name, job.job_name,
               spec.parallelism);
  } catch (...) {
    // Nothing will run it: do not leave it waiting on the server.
    try {
      server.cancel(submitted.id);
    } catch (const std::exception&) {
    }
    throw;
  }
  if (o.detach) {
    std::cout << fmt::format(
        "sweep {} submitted\n  follow  {}\n  cancel  gantry sweep cancel {} "
        "--server {} --namespace {}\n",
        submitted.id, url, submitted.id, server.server_url(), spec.namespace_name);
    return;
  }

  ProgressBar bar(fmt::format("sweep {}: {} runs in {} shards on Kubernetes", sweep.name,
                              submitted.runs, submitted.shards),
                  !no_progress);
  std::set<std::string> shown;  // pod problems printed already
  long long done = 0;
  const std::string job_path = "/apis/batch/v1/namespaces/" + spec.namespace_name + "/jobs/" +
                               kube::sweep_job_name(spec.sweep_id);
  while (true) {
    const web::SweepProgress p = server.wait(submitted.id, done, std::chrono::seconds(10));
    done = static_cast<long long>(p.done);
    bar.update(p.total == 0 ? 1.0 : static_cast<double>(p.done) / static_cast<double>(p.total));
    if (p.state == "done") break;
    if (p.state == "cancelled") throw GantryError("sweep " + submitted.id + " was cancelled");
    // What the cluster knows about the shards, shown once each.
    const std::vector<std::string> problems = kube::sweep_pod_problems(
        kube::list_sweep_pods(cluster, spec.namespace_name, spec.sweep_id));
    const nlohmann::json failed = true_condition(cluster.get(job_path), "Failed");
    if (!failed.is_null()) {
      // The error lists every problem of the pods, the ones shown while waiting too: it is
      // what the user reads last.
      std::string message = fmt::format("the Job of sweep {} failed ({}): {}", submitted.id,
                                        failed.value("reason", ""), failed.value("message", ""));
      for (const std::string& problem : problems) message += "\n  " + problem;
      throw GantryError(message + "\nThe runs that finished are kept on the server: " + url);
    }
    for (const std::string& problem : problems)
      if (shown.insert(problem).second) fmt::print(stderr, "\n{}\n", problem);
    if (p.retry_after_ms > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds(p.retry_after_ms));
  }
  bar.finish();
  print_result(server.get(submitted.id), format,
               out_dir.empty() ? "gantry-out/" + sweep.name : out_dir, url);
}

void add_sweep_cancel_command(CLI::App* sweep) {
  struct Cancel {
    std::string id;
    ServerFlags server;
    KubeTarget target;
    std::string namespace_name;
  };
  auto c = std::make_shared<Cancel>();
  CLI::App* cmd = sweep->add_subcommand(
      "cancel", "Cancel a sweep running on Kubernetes: on the server, and delete its Job");
  cmd->add_option("id", c->id, "The sweep's id (gantry sweep --on kubernetes printed it)")
      ->required();
  add_server_flags(cmd, c->server);
  add_target_options(cmd, c->target);
  cmd->add_option("--namespace", c->namespace_name,
                  "Namespace of the Job (default: the kubeconfig context's)");
  cmd->callback([c] {
    web::SweepCoordinatorClient server(server_url(c->server), server_token(c->server));
    try {
      server.cancel(c->id);
    } catch (const web::SweepServerError& e) {
      if (e.status != 409) throw;  // 409: it had finished; its Job may still be there
    }
    const kube::KubeConfig config = load_target(c->target);
    const std::string ns = c->namespace_name.empty() ? config.namespace_name : c->namespace_name;
    kube::KubeClient cluster(config);
    const bool deleted = kube::delete_sweep_job(cluster, ns, c->id);
    std::cout << fmt::format("sweep {} cancelled; Job {}/{} {}\n", c->id, ns,
                             kube::sweep_job_name(c->id),
                             deleted ? "deleted with its pods" : "was not there");
  });
}

}  // namespace gantry::cli
