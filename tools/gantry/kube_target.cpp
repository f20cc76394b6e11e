#include "tools/gantry/kube_target.hpp"

#include <cstdlib>

#include "engine/core/errors.hpp"

namespace gantry::cli {

void add_target_options(CLI::App* cmd, KubeTarget& t) {
  cmd->add_option("--kubeconfig", t.kubeconfig,
                  "kubeconfig file (default $KUBECONFIG, else ~/.kube/config)");
  cmd->add_option("--context", t.context, "Context of the kubeconfig (default: its current)");
}

kube::KubeConfig load_target(const KubeTarget& t) {
  std::string path = t.kubeconfig;
  if (path.empty()) {
    if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
      path = env;
    } else if (const char* home = std::getenv("HOME"); home != nullptr) {
      path = std::string(home) + "/.kube/config";
    }
  }
  if (path.empty()) throw GantryError("--kubeconfig: no kubeconfig given and no $HOME");
  return kube::load_kubeconfig(path, t.context);
}

}  // namespace gantry::cli
