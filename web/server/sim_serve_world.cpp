// --world sim: the simulated cluster of a Scenario (serve_world.hpp).

#include <fmt/format.h>

#include <optional>

#include "adapters/simcluster/cluster_task_executor.hpp"
#include "adapters/traces/trace_ref_loader.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/serving/serving_driver.hpp"
#include "sim/world_builder.hpp"
#include "web/server/serve_world.hpp"
#include "workflow/runner/simulated_executor.hpp"

namespace gantry::web {

namespace {

class SimServeWorld final : public ServeWorld {
 public:
  SimServeWorld(EventLoop& loop, const std::string& file, uint64_t seed)
      : file_(file), loop_(loop) {
    const ScenarioSpec scenario =
        starting_at(load_scenario_file(file, trace_loaders()), loop.now());
    world_ = build_world(scenario, loop);
    containers_ = std::make_unique<SimulatedExecutor>(loop, seed);
    executor_ = std::make_unique<ClusterTaskExecutor>(*world_->world, *containers_);
    // The scenario's services run beside its jobs and the pipelines' tasks, their replicas
    // placed by the same scheduler (sim/serving/serving_driver.hpp); their traces were read
    // with the scenario, so a bad trace file is an error at start.
    services_ = scenario.workload.services;
    traces_ = scenario.service_traces;
    traces_.resize(services_.size());
    seed_ = scenario.seed;
    start_ = scenario.start;
    report_interval_ = scenario.sim.service_report_interval;
  }
  const Cluster& cluster() const override { return *world_->cluster; }
  const Scheduler& scheduler() const override { return *world_->scheduler; }
  TaskExecutor& executor() override { return *executor_; }
  JobId job_of(AttemptId id) const override { return executor_->job_of(id); }
  void start() override {
    // After set_action_log(): the services' scale lines go to the same log.
    if (!services_.empty())
      serving_.emplace(loop_, *world_->world, services_, traces_, seed_, start_,
                       ServiceRun::Options{report_interval_, action_log_});
    world_->world->start();
    if (world_->pools) world_->pools->start();
    if (serving_) serving_->start();
  }
  void set_action_log(ActionLog* log) override {
    action_log_ = log;
    world_->world->set_action_log(log);
  }
  std::string describe() const override {
    const size_t n = services_.size();
    return "sim: " + file_ + (n == 0 ? "" : fmt::format(", {} service{}", n, n == 1 ? "" : "s"));
  }

 private:
  std::string file_;
  EventLoop& loop_;
  // The services, kept for start() (not the whole scenario: its jobs are the world's now).
  std::vector<ServiceSpec> services_;
  std::vector<std::shared_ptr<const std::vector<TraceRequest>>> traces_;
  uint64_t seed_ = 0;
  Time start_;
  Duration report_interval_;
  ActionLog* action_log_ = nullptr;
  std::optional<ServingDriver> serving_;
  std::unique_ptr<SimulatedWorld> world_;
  std::unique_ptr<SimulatedExecutor> containers_;
  std::unique_ptr<ClusterTaskExecutor> executor_;
};

}  // namespace

std::unique_ptr<ServeWorld> make_sim_world(EventLoop& loop, const std::string& scenario_file,
                                           uint64_t seed) {
  return std::make_unique<SimServeWorld>(loop, scenario_file, seed);
}

}  // namespace gantry::web
