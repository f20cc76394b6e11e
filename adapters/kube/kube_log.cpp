#include "adapters/kube/kube_log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace gantry::kube {

spdlog::logger& kube_log() {
  // Not registered with spdlog's registry: nothing else can replace or drop it.
  static const std::shared_ptr<spdlog::logger> logger = [] {
    auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    return std::make_shared<spdlog::logger>("gantry.kube", std::move(sink));
  }();
  return *logger;
}

}  // namespace gantry::kube
