#pragma once
// The flags that name a Kubernetes cluster, shared by every command that talks to one:
// --kubeconfig PATH (default $KUBECONFIG, else ~/.kube/config) and --context C (default: the
// kubeconfig's current context).

#include <CLI/CLI.hpp>
#include <string>

#include "adapters/kube/kube_config.hpp"

namespace gantry::cli {

struct KubeTarget {
  std::string kubeconfig;
  std::string context;
};

void add_target_options(CLI::App* cmd, KubeTarget& t);

// Loads the kubeconfig the flags name. Throws GantryError (no kubeconfig and no $HOME) or the
// loader's errors (kube_config.hpp).
kube::KubeConfig load_target(const KubeTarget& t);

}  // namespace gantry::cli
