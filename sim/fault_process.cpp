#include "sim/fault_process.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <functional>
#include <string>
#include <tuple>

namespace gantry {

namespace {

// At least a microsecond: a unit whose draw rounds to zero still moves forward in time.
Duration at_least_one_micro(Duration d) { return std::max(d, Duration(1)); }

// The GPU model of a node class's GPUs; empty for CPU-only classes.
std::string_view model_of(const Topology& t, const NodeClass& c) {
  if (c.gpu_type < 0 || c.capacity.gpus <= 0) return {};
  return t.gpus.at(c.gpu_type).name;
}

// The nodes a maintenance entry drains, in drain order (ascending ids).
std::vector<NodeId> maintained_nodes(const MaintenanceSpec& m, const Topology& t) {
  std::vector<NodeId> out;
  switch (m.target) {
    case MaintenanceSpec::Target::kAll:
      for (size_t n = 0; n < t.nodes.size(); ++n) out.push_back(static_cast<NodeId>(n));
      break;
    case MaintenanceSpec::Target::kRack:
      for (size_t n = 0; n < t.nodes.size(); ++n)
        if (t.nodes[n].rack == m.rack) out.push_back(static_cast<NodeId>(n));
      break;
    case MaintenanceSpec::Target::kNodes:
      out = m.nodes;
      break;
  }
  return out;
}

auto order_key(const FaultEvent& e) { return std::tuple(e.at, e.node, e.rack, e.gpu, e.action); }

}  // namespace

FaultTimeline::FaultTimeline(const FaultSpec& spec, const Topology& topology, Time start,
                             uint64_t seed)
    : spec_(spec), start_(start), drawn_until_(start) {
  const RandomStreams streams(seed);
  for (size_t p = 0; p < spec_.processes.size(); ++p) {
    streams_.push_back(streams.stream("faults/process/" + std::to_string(p)));
    const FailureProcessSpec& process = spec_.processes[p];
    assert(process.repair.mean > Duration{});
    // Which node classes the process applies to, so nodes are not matched one by one.
    std::vector<bool> applies(topology.classes.size());
    for (size_t c = 0; c < topology.classes.size(); ++c)
      applies[c] = gpu_model_matches(process.gpu_model, model_of(topology, topology.classes[c]));
    const auto owner = static_cast<uint32_t>(p);
    const auto node_applies = [&](size_t n) {
      return applies[static_cast<size_t>(topology.nodes[n].node_class)];
    };
    switch (process.component) {
      case FailureComponent::kGpu:
        for (size_t n = 0; n < topology.nodes.size(); ++n) {
          if (!node_applies(n)) continue;
          const int gpus = topology.class_of(static_cast<NodeId>(n)).capacity.gpus;
          for (int g = 0; g < gpus; ++g)
            units_.push_back(Unit{owner, static_cast<NodeId>(n), -1, g});
        }
        break;
      case FailureComponent::kNode:
        for (size_t n = 0; n < topology.nodes.size(); ++n)
          if (node_applies(n)) units_.push_back(Unit{owner, static_cast<NodeId>(n), -1, -1});
        break;
      case FailureComponent::kRack: {
        std::vector<bool> rack_applies(topology.racks.size());
        for (size_t n = 0; n < topology.nodes.size(); ++n)
          if (node_applies(n)) rack_applies[static_cast<size_t>(topology.nodes[n].rack)] = true;
        for (size_t r = 0; r < rack_applies.size(); ++r)
          if (rack_applies[r]) units_.push_back(Unit{owner, -1, static_cast<RackId>(r), -1});
        break;
      }
    }
  }
  const size_t failure_units = units_.size();
  for (size_t i = 0; i < failure_units; ++i)
    push(saturating_add(start_, draw_time_to_failure(units_[i].owner)), static_cast<uint32_t>(i));

  for (size_t m = 0; m < spec_.maintenance.size(); ++m) {
    const MaintenanceSpec& entry = spec_.maintenance[m];
    assert(entry.duration > Duration{});
    const std::vector<NodeId> nodes = maintained_nodes(entry, topology);
    const Duration slot = saturating_add(entry.deadline, entry.duration);
    const size_t batch = entry.concurrent > 0 ? static_cast<size_t>(entry.concurrent)
                                              : std::max<size_t>(nodes.size(), 1);
    const Time round = saturating_add(start_, entry.start);
    for (size_t i = 0; i < nodes.size(); ++i) {
      assert(nodes[i] >= 0 && static_cast<size_t>(nodes[i]) < topology.nodes.size());
      const auto unit = static_cast<uint32_t>(units_.size());
      units_.push_back(Unit{static_cast<uint32_t>(spec_.processes.size() + m), nodes[i], -1, -1});
      push(saturating_add(round, saturating_mul(slot, static_cast<int64_t>(i / batch))), unit);
    }
  }
}

Duration FaultTimeline::draw_time_to_failure(size_t process) {
  const TimeToFailure& ttf = spec_.processes[process].time_to_failure;
  RandomStream& s = streams_[process];
  switch (ttf.kind) {
    case TimeToFailure::Kind::kExponential:
      assert(ttf.mtbf > Duration{});
      return at_least_one_micro(Duration::from_seconds(s.exponential(ttf.mtbf.seconds())));
    case TimeToFailure::Kind::kWeibull: {
      assert(ttf.shape > 0 && ttf.scale > Duration{});
      // Inverse CDF: F(t) = 1 − exp(−(t/scale)^shape) = u  ⇔  t = scale·(−ln(1−u))^(1/shape).
      const double u = s.uniform();
      const double t = ttf.scale.seconds() * std::pow(-std::log1p(-u), 1.0 / ttf.shape);
      return at_least_one_micro(Duration::from_seconds(t));
    }
  }
  return Duration::max();
}

Duration FaultTimeline::draw_repair(size_t process) {
  const RepairTime& r = spec_.processes[process].repair;
  if (r.kind == RepairTime::Kind::kFixed) return r.mean;
  return at_least_one_micro(
      Duration::from_seconds(streams_[process].exponential(r.mean.seconds())));
}

void FaultTimeline::push(Time at, uint32_t unit) {
  // Past the last instant Gantry simulates, the unit never acts again.
  if (at > kLatestTime) return;
  heap_.push_back(Next{at, unit});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
}

Result<std::vector<FaultEvent>> FaultTimeline::take_until(Time end, size_t max_events) {
  assert(!spent_);
  std::vector<FaultEvent> out;
  if (end <= drawn_until_) return out;
  drawn_until_ = end;
  while (!heap_.empty() && heap_.front().at < end) {
    if (out.size() == max_events) {
      spent_ = true;
      return Status::error("the failure model gives more than " + std::to_string(max_events) +
                           " fault and maintenance events before " + format_rfc3339(end) +
                           " (is an MTBF or a maintenance period far too short?)");
    }
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const Next next = heap_.back();
    heap_.pop_back();
    const Unit& unit = units_[next.unit];
    FaultEvent e;
    e.at = next.at;
    e.node = unit.node;
    e.rack = unit.rack;
    e.gpu = unit.gpu;
    if (unit.owner < spec_.processes.size()) {
      const FailureProcessSpec& process = spec_.processes[unit.owner];
      switch (process.component) {
        case FailureComponent::kGpu:
          e.action = FaultAction::kGpuFail;
          break;
        case FailureComponent::kNode:
          e.action = FaultAction::kNodeDown;
          break;
        case FailureComponent::kRack:
          e.action = FaultAction::kRackDown;
          break;
      }
      e.duration = draw_repair(unit.owner);
      e.cause = process.cause;
      // The next failure is drawn from the end of the repair.
      push(saturating_add(saturating_add(e.at, e.duration), draw_time_to_failure(unit.owner)),
           next.unit);
    } else {
      const MaintenanceSpec& m = spec_.maintenance[unit.owner - spec_.processes.size()];
      e.action = FaultAction::kDrain;
      e.duration = m.duration;
      e.deadline = m.deadline;
      e.cause = m.cause;
      if (m.every) push(saturating_add(e.at, *m.every), next.unit);
    }
    out.push_back(std::move(e));
  }
  // Pops came in (time, unit) order; this puts one instant's events in node order and keeps
  // full ties in unit order.
  std::stable_sort(out.begin(), out.end(), [](const FaultEvent& x, const FaultEvent& y) {
    return order_key(x) < order_key(y);
  });
  return out;
}

Result<std::vector<FaultEvent>> draw_fault_events(const FaultSpec& spec, const Topology& topology,
                                                  Time start, Time end, uint64_t seed,
                                                  size_t max_events) {
  return FaultTimeline(spec, topology, start, seed).take_until(end, max_events);
}

}  // namespace gantry
