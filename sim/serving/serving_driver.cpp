#include "sim/serving/serving_driver.hpp"

#include <algorithm>

#include "sim/serving/serving_simulation.hpp"

namespace gantry {

ServingDriver::ServingDriver(
    EventLoop& loop, TrainingWorld& world, const std::vector<ServiceSpec>& services,
    const std::vector<std::shared_ptr<const std::vector<TraceRequest>>>& traces, uint64_t seed,
    Time scenario_start, ServiceRun::Options options)
    : loop_(loop) {
  host_ = std::make_unique<ClusterHost>(world, [this] {
    if (!firing_) reschedule();
  });
  const RandomStreams streams(seed);
  for (size_t i = 0; i < services.size(); ++i) {
    runs_.push_back(std::make_unique<ServiceRun>(services[i], scenario_start,
                                                 service_stream(streams, services[i]), *host_,
                                                 i < traces.size() ? traces[i] : nullptr, options));
  }
}

void ServingDriver::start() { reschedule(); }

void ServingDriver::reschedule() {
  Time next = Time::max();
  for (const auto& run : runs_) next = std::min(next, run->next_wakeup());
  if (next == scheduled_) return;
  if (scheduled_ != Time::max()) loop_.cancel(timer_);
  scheduled_ = next;
  if (next == Time::max() || next > kLatestTime) {
    scheduled_ = Time::max();
    return;
  }
  timer_ = loop_.schedule_at(std::max(next, loop_.now()), [this] { fire(); });
}

void ServingDriver::fire() {
  scheduled_ = Time::max();
  firing_ = true;
  const Time now = loop_.now();
  for (const auto& run : runs_)
    if (run->next_wakeup() <= now) run->wake(now);
  firing_ = false;
  reschedule();
  if (on_wake_) on_wake_(now);
}

std::vector<ServiceReport> ServingDriver::finish(Time end) {
  std::vector<ServiceReport> reports;
  for (const auto& run : runs_) {
    run->finish(end);
    reports.push_back(run->report());
  }
  return reports;
}

}  // namespace gantry
