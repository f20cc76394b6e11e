#pragma once
// What the Kubernetes adapter logs (adapters/kube/kube_log.hpp) during a test: a sink added to
// kube_log() for the object's life, each line "<level> <message>" (e.g. "warning informer ...").
// Read lines() once the component that logs has stopped or gone idle.

#include <spdlog/sinks/ostream_sink.h>

#include <algorithm>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "adapters/kube/kube_log.hpp"

namespace gantry::kube::testing {

class CapturedLog {
 public:
  CapturedLog() : sink_(std::make_shared<spdlog::sinks::ostream_sink_mt>(text_)) {
    sink_->set_pattern("%l %v");
    kube_log().sinks().push_back(sink_);
  }
  ~CapturedLog() { std::erase(kube_log().sinks(), sink_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::vector<std::string> lines() const {
    sink_->flush();
    std::vector<std::string> out;
    std::istringstream in(text_.str());
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

}  // namespace gantry::kube::testing
