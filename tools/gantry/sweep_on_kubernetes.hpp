#pragma once
// `gantry sweep SWEEP.yaml --on kubernetes ...` and `gantry sweep cancel ID` (issue #25; README,
// "Sweeps on Kubernetes"): the sweep's runs as one Indexed batch/v1 Job on the user's cluster,
// coordinated by `gantry serve`.
//
// The sweep file, its base and the base's data files go to the server, which runs them as one
// Indexed Job (tools/gantry/kube_sweep_job.hpp: submission, the Job, waiting, the pods'
// errors). With --detach the command prints the sweep's id and URL and returns once the Job is
// created; otherwise it waits and at the end prints what a local `gantry sweep` prints (text
// or JSON) and writes the charts into --out.
//
// --dry-run prints the Job and the Secret as YAML and creates nothing (the id and token a real
// run gets from the server are shown as placeholders).

#include <CLI/CLI.hpp>
#include <string>

#include "tools/gantry/kube_sweep_job.hpp"

namespace gantry::cli {

// Runs the sweep at `file` on Kubernetes as described above; `format` "text" or "json";
// `out_dir` where the charts go (default gantry-out/<sweep name>).
void run_sweep_on_kubernetes(const std::string& file, const KubeSweepOptions& o,
                             const std::string& format, const std::string& out_dir,
                             bool no_progress);

// `gantry sweep cancel ID`: cancels the sweep on the server and deletes its Job (propagation
// Background: its pods and Secret go with it).
void add_sweep_cancel_command(CLI::App* sweep);

}  // namespace gantry::cli
