#pragma once
// `gantry sweep SWEEP.yaml --on kubernetes ...` and `gantry sweep cancel ID` (issue #25; README,
// "Sweeps on Kubernetes"): the sweep's runs as one Indexed batch/v1 Job on the user's cluster,
// coordinated by `gantry serve`.
//
//   1. the sweep file, its base and the base's data files go to the server
//      (SweepCoordinatorClient::submit), which checks them and answers an id, the shards and the
//      workers' token;
//   2. the Job and its token Secret are created (adapters/kube/sweep_job_launcher.hpp); if that
//      fails, the sweep is cancelled on the server again, so nothing waits for pods that never
//      come;
//   3. with --detach the command prints the sweep's id and URL and returns; otherwise it waits
//      (long polls, a progress bar), prints what the Job's pods say is wrong as it appears
//      (image pull, a failed shard's message, unschedulable), stops with an error when the Job
//      fails, and at the end prints what a local `gantry sweep` prints (text or JSON) and writes
//      the charts into --out.
//
// --dry-run prints the Job and the Secret as YAML and creates nothing (the id and token a real
// run gets from the server are shown as placeholders).

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "tools/gantry/kube_target.hpp"
#include "tools/gantry/server_flags.hpp"

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

// The flags above, on `gantry sweep`.
void add_kube_sweep_flags(CLI::App* sweep, KubeSweepOptions& o);

// Runs the sweep at `file` on Kubernetes as described above; `format` "text" or "json";
// `out_dir` where the charts go (default gantry-out/<sweep name>).
void run_sweep_on_kubernetes(const std::string& file, const KubeSweepOptions& o,
                             const std::string& format, const std::string& out_dir,
                             bool no_progress);

// `gantry sweep cancel ID`: cancels the sweep on the server and deletes its Job (propagation
// Background: its pods and Secret go with it).
void add_sweep_cancel_command(CLI::App* sweep);

}  // namespace gantry::cli
