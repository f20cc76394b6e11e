#include "tools/gantry/sweep_on_kubernetes.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/sweep_job.hpp"
#include "adapters/kube/sweep_job_launcher.hpp"
#include "engine/config/reader.hpp"
#include "engine/core/errors.hpp"
#include "engine/store/replacement_file.hpp"
#include "sim/sweep/sweep_documents.hpp"
#include "sim/sweep/sweep_loader.hpp"
#include "tools/gantry/cli_inputs.hpp"
#include "web/client/sweep_coordinator_client.hpp"

namespace gantry::cli {

namespace {

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

void run_sweep_on_kubernetes(const std::string& file, const KubeSweepOptions& o,
                             const std::string& format, const std::string& out_dir,
                             bool no_progress) {
  require_image(o);
  if (o.dry_run) {
    const SweepSpec sweep = load_sweep_text(read_text_file(file), file);
    print_dry_run_job(o, sweep.points.size() * static_cast<size_t>(sweep.seeds), "gantry sweep");
    return;
  }
  const SweepDocuments documents = collect_sweep_documents(file);
  const SweepSpec sweep = load_sweep_text(documents.files.at(documents.sweep), file);
  KubeSweepSession session(o);
  const LaunchedSweepJob job =
      session.launch(documents, sweep.points.size() * static_cast<size_t>(sweep.seeds));
  if (o.detach) {
    std::cout << fmt::format(
        "sweep {} submitted\n  follow  {}\n  cancel  gantry sweep cancel {} "
        "--server {} --namespace {}\n",
        job.submitted.id, job.url, job.submitted.id, session.server().server_url(),
        job.spec.namespace_name);
    return;
  }
  const nlohmann::json done =
      session.wait(job,
                   fmt::format("sweep {}: {} runs in {} shards on Kubernetes", sweep.name,
                               job.submitted.runs, job.submitted.shards),
                   no_progress);
  print_result(done, format, out_dir.empty() ? "gantry-out/" + sweep.name : out_dir, job.url);
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
  cmd->footer(
      "Example: gantry sweep cancel sw-1-k3x9qa --server https://gantry.example --namespace "
      "what-if");
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
