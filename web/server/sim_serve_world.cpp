// --world sim: the simulated cluster of a Scenario (serve_world.hpp).

#include <fmt/format.h>

#include "adapters/simcluster/cluster_task_executor.hpp"
#include "adapters/traces/trace_ref_loader.hpp"
#include "sim/scenario_loader.hpp"
#include "sim/world_builder.hpp"
#include "web/server/serve_world.hpp"
#include "workflow/runner/simulated_executor.hpp"

namespace gantry::web {

namespace {

class SimServeWorld final : public ServeWorld {
 public:
  SimServeWorld(EventLoop& loop, const std::string& file, uint64_t seed) : file_(file) {
    const ScenarioSpec scenario = load_scenario_file(file, load_trace_topology);
    world_ = build_world(starting_at(scenario, loop.now()), loop);
    containers_ = std::make_unique<SimulatedExecutor>(loop, seed);
    executor_ = std::make_unique<ClusterTaskExecutor>(*world_->world, *containers_);
  }
  const Cluster& cluster() const override { return *world_->cluster; }
  const Scheduler& scheduler() const override { return *world_->scheduler; }
  TaskExecutor& executor() override { return *executor_; }
  void start() override {
    world_->world->start();
    if (world_->pools) world_->pools->start();
  }
  void set_action_log(ActionLog* log) override { world_->world->set_action_log(log); }
  std::string describe() const override { return "sim: " + file_; }

 private:
  std::string file_;
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
