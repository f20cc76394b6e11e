#pragma once
// The commands that talk to a Kubernetes API server (adapters/kube):
//   gantry kubelet-sim --kubeconfig PATH --cluster SCENARIO [--context C] [--speed N]
//   gantry snapshot --kubeconfig PATH [--context C] [--name NAME] > scenario.yaml

#include <CLI/CLI.hpp>

namespace gantry::cli {

void add_kube_commands(CLI::App& app);

}  // namespace gantry::cli
