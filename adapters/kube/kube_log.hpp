#pragma once
// The log of the Kubernetes adapter: what the client and the informers retry, back off from or
// give up on, which no caller sees otherwise (an informer runs on its own thread and never
// throws). spdlog, written to stderr: stdout carries commands' output (gantry snapshot's YAML,
// kubelet-sim's progress lines).
//
// Thread-safe (spdlog's _mt sinks). Tests may add a sink to kube_log() to read what is logged.

#include <spdlog/logger.h>

namespace gantry::kube {

// The logger "gantry.kube", made on the first call.
spdlog::logger& kube_log();

}  // namespace gantry::kube
