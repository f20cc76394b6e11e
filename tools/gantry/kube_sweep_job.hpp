#pragma once
// One distributed sweep run as a Kubernetes Indexed Job (issue #25; README, "Sweeps on
// Kubernetes"), the part `gantry sweep --on kubernetes` and `gantry plan --on kubernetes` share:
// their flags, --dry-run's YAML, and a sweep's life from submission to its figures.
//
//   launch(): the documents go to `gantry serve` (SweepCoordinatorClient::submit), which checks
//     them and answers an id, the shards and the workers' token; then the Job and its token
//     Secret are created (adapters/kube/sweep_job_launcher.hpp). If creating them fails, the
//     sweep is cancelled on the server again, so nothing waits for pods that never come.
//   wait(): long polls with a progress bar; what the Job's pods say is wrong is printed as it
//     appears (image pull, a failed shard's message, unschedulable); a failed Job (a shard past
//     --backoff-limit-per-index) or a cancelled sweep stops it with a GantryError carrying the
//     pods' messages. Returns the done sweep's JSON (SweepCoordinatorClient::get).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "adapters/kube/kube_client.hpp"
#include "adapters/kube/sweep_job.hpp"
#include "sim/sweep/sweep_documents.hpp"
#include "tools/gantry/kube_target.hpp"
#include "tools/gantry/server_flags.hpp"
#include "web/client/sweep_coordinator_client.hpp"

namespace gantry::cli {

struct KubeSweepOptions {
  ServerFlags server;
  std::string worker_server;  // the server's URL as the pods reach it (default: --server)
  KubeTarget target;
  std::string namespace_name;  // default: the kubeconfig context's
  std::string image;
  int64_t parallelism = 4;
  int64_t shards = 0;  // 0: one per parallel pod (at most one per run)
  std::string cpu = "1";
  std::string memory = "2Gi";
  int64_t backoff_limit_per_index = 3;
  int64_t ttl_seconds_after_finished = 86400;
  bool dry_run = false;
  bool detach = false;
};

// The flags above, on `gantry sweep` and `gantry plan`; `detach_help` describes --detach.
void add_kube_sweep_flags(CLI::App* cmd, KubeSweepOptions& o, const std::string& detach_help);

// Throws GantryError when --image is missing (the pods need one).
void require_image(const KubeSweepOptions& o);

// --dry-run: prints (stdout) the Job and the Secret a sweep of `runs` runs would get, as YAML,
// under a comment saying that `command` created nothing. Reads only the kubeconfig (for the
// namespace, when --namespace is not given).
void print_dry_run_job(const KubeSweepOptions& o, size_t runs, const std::string& command);

struct LaunchedSweepJob {
  web::SweepSubmission submitted;
  kube::SweepJobSpec spec;
  std::string url;  // the sweep on the server, absolute
};

// The server and the cluster of one command, for as many sweeps as it runs in turn.
class KubeSweepSession {
 public:
  // Reads the kubeconfig. Throws GantryError (--image missing, a bad kubeconfig).
  explicit KubeSweepSession(const KubeSweepOptions& o);

  // Submits `documents` (a sweep of `runs` runs) and creates its Job (see above); prints
  // "sweep ID: N runs in K shards, Job NS/NAME (P pods at once)" on stderr.
  LaunchedSweepJob launch(const SweepDocuments& documents, size_t runs);
  // Waits for the end (see above), the bar titled `title`; no bar with `no_progress`.
  nlohmann::json wait(const LaunchedSweepJob& job, const std::string& title, bool no_progress);

  web::SweepCoordinatorClient& server() { return server_; }

 private:
  const KubeSweepOptions& o_;
  kube::KubeConfig config_;
  web::SweepCoordinatorClient server_;
  kube::KubeClient cluster_;
};

}  // namespace gantry::cli
