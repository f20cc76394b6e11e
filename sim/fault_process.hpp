#pragma once
// Drawing the FaultEvents (sim/fault_event.hpp) a FaultSpec (sim/fault_spec.hpp) implies over a
// run: every failure of every unit its processes apply to, and every maintenance drain.
//
// A failure is one event whose `duration` is the repair time drawn for it: the world brings
// the part back by itself, no separate up/repair event is drawn. A drain is one kDrain event
// per node with the spec's deadline and duration. Processes are independent of one another: a
// GPU process may fail a GPU of a node a node process has taken down; the world decides what
// that changes (nothing, for a node already down).
//
// Randomness: one named stream per process, "faults/process/<index in spec.processes>", so
// adding a process does not shift the draws of those before it. At construction every unit
// (in id order: nodes, then a node's GPUs by index; racks) draws its first time to failure;
// then, in time order, each failure draws its repair time and the unit's next time to failure.
// Since the draws follow the events' global time order, the events do not depend on how a
// run is cut into take_until() windows. Weibull draws are the inverse CDF written out,
// scale·(−ln(1−u))^(1/shape); exponential ones RandomStream::exponential. A draw is at least
// one microsecond, so a unit's failures always move forward in time.
//
// Order of the events: by time; at one instant by node, then rack, then GPU, then action (the
// order of FaultAction), then the order of the processes and maintenance entries in the spec,
// then the units' order.
//
// Costs: U units (GPUs, nodes, racks the processes apply to, plus one per node and maintenance
// entry), E events drawn.
//
//   | operation   | time         | memory                              |
//   |-------------|--------------|-------------------------------------|
//   | constructor | O(U + nodes) | O(U): ~32 bytes a unit (unit, heap) |
//   | take_until  | O(E log U)   | O(E), the events returned           |
//
// The Llama 3 preset on 2,048 nodes of 8 H100s is 18,432 units and about 230 events over 30
// days.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/cluster/topology.hpp"
#include "engine/core/random.hpp"
#include "engine/core/status.hpp"
#include "engine/core/time.hpp"
#include "sim/fault_event.hpp"
#include "sim/fault_spec.hpp"

namespace gantry {

// A guard against a failure model that would flood a run (an MTBF of seconds on thousands of
// GPUs over months): far above anything real (the Llama 3 figures give some 2,800 events a
// year on 16,384 GPUs), and some 80 MB of events.
inline constexpr size_t kMaxFaultEvents = 1'000'000;

class FaultTimeline {
 public:
  // `spec` must be valid as sim/fault_loader.hpp checks it (MTBFs, scales, shapes and repair
  // times above zero; maintenance node and rack ids of `topology`); asserted. Copies what it
  // needs: `spec` and `topology` need not outlive it.
  FaultTimeline(const FaultSpec& spec, const Topology& topology, Time start, uint64_t seed);

  // Every event in [the end of the previous call (the start, at first), end), sorted as above.
  // An `end` at or before the previous one gives nothing. Fails, leaving the timeline unusable,
  // when the window holds more than `max_events` events.
  Result<std::vector<FaultEvent>> take_until(Time end, size_t max_events = kMaxFaultEvents);

  // The end of the last window taken.
  Time drawn_until() const { return drawn_until_; }
  // How many units (failure and maintenance sources) the timeline tracks.
  size_t units() const { return units_.size(); }

 private:
  struct Unit {
    uint32_t owner;  // a process index, or processes.size() + a maintenance index
    NodeId node;
    RackId rack;
    int32_t gpu;
  };
  struct Next {
    Time at;
    uint32_t unit;
    bool operator>(const Next& o) const { return at != o.at ? at > o.at : unit > o.unit; }
  };

  Duration draw_time_to_failure(size_t process);
  Duration draw_repair(size_t process);
  void push(Time at, uint32_t unit);

  FaultSpec spec_;
  std::vector<RandomStream> streams_;  // one per process
  std::vector<Unit> units_;
  std::vector<Next> heap_;  // a min-heap on (at, unit)
  Time start_;
  Time drawn_until_;
  bool spent_ = false;
};

// All events of [start, end) at once: FaultTimeline(spec, topology, start, seed)
// .take_until(end, max_events).
Result<std::vector<FaultEvent>> draw_fault_events(const FaultSpec& spec, const Topology& topology,
                                                  Time start, Time end, uint64_t seed,
                                                  size_t max_events = kMaxFaultEvents);

}  // namespace gantry
