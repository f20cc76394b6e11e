#pragma once
// The commands that talk to a Kubernetes API server (adapters/kube):
//   gantry kubelet-sim --kubeconfig PATH --cluster SCENARIO [--context C] [--speed N]
//   gantry snapshot --kubeconfig PATH [--context C] [--name NAME] > scenario.yaml
//   gantry kube drain NODE --for M [--deadline D] [--kubeconfig PATH] [--context C]: writes
//     the node's gantry.dev/drain-request annotation (adapters/kube/model/kube_node.hpp) for
//     the leader of `gantry serve --world kube` to carry out. Exit 2 for a bad duration (named
//     by its flag) or an unknown node.

#include <CLI/CLI.hpp>

namespace gantry::cli {

void add_kube_commands(CLI::App& app);

}  // namespace gantry::cli
