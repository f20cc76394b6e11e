#pragma once
// Runs a scenario's services on its event loop and cluster: one ServiceRun per service on a
// ClusterHost, woken by a single timer set to the earliest run's next_wakeup() (one event per
// wake-up, not per request).

#include <functional>
#include <memory>
#include <vector>

#include "engine/core/event_loop.hpp"
#include "sim/serving/cluster_host.hpp"
#include "sim/serving/service_run.hpp"

namespace gantry {

class ServingDriver {
 public:
  // `traces[i]`: the rows of services[i]'s trace load, or nullptr. Call start() before running
  // the loop.
  ServingDriver(EventLoop& loop, TrainingWorld& world, const std::vector<ServiceSpec>& services,
                const std::vector<std::shared_ptr<const std::vector<TraceRequest>>>& traces,
                uint64_t seed, Time scenario_start, ServiceRun::Options options);
  void start();
  // Called after every wake-up with its instant (a services-only scenario's progress).
  void on_wake(std::function<void(Time)> fn) { on_wake_ = std::move(fn); }
  // Cuts every run at `end` and returns the reports, in the services' order.
  std::vector<ServiceReport> finish(Time end);

 private:
  void fire();
  void reschedule();

  EventLoop& loop_;
  std::unique_ptr<ClusterHost> host_;
  std::vector<std::unique_ptr<ServiceRun>> runs_;
  TimerId timer_{};
  Time scheduled_ = Time::max();
  bool firing_ = false;
  std::function<void(Time)> on_wake_;
};

}  // namespace gantry
