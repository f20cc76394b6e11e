#include "adapters/kube/world/live_maintenance.hpp"

namespace gantry::kube {

namespace {

FaultSpec maintenance_only(const FaultSpec& spec) {
  FaultSpec out;
  out.maintenance = spec.maintenance;
  return out;
}

}  // namespace

LiveMaintenance::LiveMaintenance(KubeWorld& world, EventLoop& loop, const FaultSpec& spec,
                                 const Topology& topology, Time start, uint64_t seed,
                                 Duration window)
    : world_(world),
      loop_(loop),
      topology_(topology),
      timeline_(std::make_unique<FaultTimeline>(maintenance_only(spec), topology, start, seed)),
      window_(window) {}

LiveMaintenance::~LiveMaintenance() { stop(); }

void LiveMaintenance::start() { draw(); }

void LiveMaintenance::stop() {
  stopped_ = true;
  for (const TimerId t : timers_) loop_.cancel(t);
  timers_.clear();
}

void LiveMaintenance::draw() {
  if (stopped_) return;
  timers_.clear();  // every timer of the previous window has run: its drains were before now
  const Time end = saturating_add(timeline_->drawn_until(), window_);
  Result<std::vector<FaultEvent>> events = timeline_->take_until(end);
  // A maintenance schedule is a handful of drains a window: far below the timeline's guard.
  if (!events) return;
  for (FaultEvent& e : events.value()) {
    if (e.action != FaultAction::kDrain) continue;
    timers_.push_back(loop_.schedule_at(e.at, [this, e = std::move(e)] { due(e); }));
  }
  timers_.push_back(loop_.schedule_at(end, [this] { draw(); }));
}

void LiveMaintenance::due(const FaultEvent& e) {
  if (stopped_) return;
  const std::string& node = topology_.nodes[static_cast<size_t>(e.node)].name;
  if (world_.scheduler().active() && world_.drain(node, e.deadline, e.duration)) {
    ++started_;
  } else {
    ++skipped_;
  }
}

}  // namespace gantry::kube
