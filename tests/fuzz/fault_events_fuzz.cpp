// libFuzzer target for the fault events file of `gantry simulate --events` (sim/fault_events.hpp):
// arbitrary bytes in, against a fixed cluster of three racks. The only acceptable failure is an
// InputError naming the file; what loads must keep its promises: every event within [the
// scenario's start, its end], in time order, naming a node, rack and GPU of the cluster as its
// action needs (and nothing it does not), durations never negative and a drain's above zero;
// every event after the end reported as an InputError naming the file. Any other exception
// escapes and libFuzzer reports it as a crash; violations trap; sanitizers report memory errors
// and UB.
//
// Build and run (clang only), as tools/fuzz-smoke.sh does:
//   cmake --build build-fuzz --target fault_events_fuzz
//   build-fuzz/tests/fuzz/fault_events_fuzz -max_total_time=60 -dict=tests/fuzz/fault_events.dict \
//     tests/fuzz/corpus/fault_events

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/cluster/topology.hpp"
#include "engine/core/errors.hpp"
#include "sim/fault_events.hpp"

namespace {

// Rack r0: nodes r0-n0, r0-n1 with 8 A100-80G; r1: r1-n0 with 4 H100-80G; r2: r2-n0, no GPUs.
const gantry::Topology& topology() {
  static const gantry::Topology t = [] {
    gantry::Topology out;
    out.gpus = gantry::GpuCatalog::with_defaults();
    const auto add_class = [&](const char* name, const char* model, int gpus) {
      gantry::NodeClass c;
      c.name = name;
      c.capacity = gantry::Resources{64'000, 512ll << 30, gpus};
      c.gpu_type = gpus > 0 ? out.gpus.find(model) : -1;
      c.island_size = gpus;
      out.classes.push_back(c);
    };
    add_class("a", "A100-80G", 8);
    add_class("h", "H100-80G", 4);
    add_class("cpu", "", 0);
    out.racks = {"r0", "r1", "r2"};
    out.nodes = {{"r0-n0", 0, 0}, {"r0-n1", 0, 0}, {"r1-n0", 1, 1}, {"r2-n0", 2, 2}};
    return out;
  }();
  return t;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gantry::FaultAction;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const gantry::Topology& t = topology();
  gantry::Time start, end;
  if (!gantry::parse_rfc3339("2026-04-01T00:00:00Z", start)) __builtin_trap();
  if (!gantry::parse_rfc3339("2026-04-03T00:00:00Z", end)) __builtin_trap();
  std::vector<gantry::InputError> skipped;
  std::vector<gantry::FaultEvent> events;
  try {
    events = gantry::load_fault_events_text(text, "events.yaml", t, start, end, &skipped);
  } catch (const gantry::InputError& e) {
    if (!starts_with(e.what(), "events.yaml")) __builtin_trap();
    return 0;
  }
  for (const gantry::InputError& e : skipped)
    if (!starts_with(e.what(), "events.yaml")) __builtin_trap();
  const auto node_count = static_cast<gantry::NodeId>(t.nodes.size());
  const auto rack_count = static_cast<gantry::RackId>(t.racks.size());
  for (size_t i = 0; i < events.size(); ++i) {
    const gantry::FaultEvent& e = events[i];
    if (e.at < start || e.at > end) __builtin_trap();
    if (i > 0 && e.at < events[i - 1].at) __builtin_trap();
    if (e.cause != "injected") __builtin_trap();
    if (e.duration < gantry::Duration{} || e.deadline < gantry::Duration{}) __builtin_trap();
    const bool rack = e.action == FaultAction::kRackDown || e.action == FaultAction::kRackUp;
    const bool gpu = e.action == FaultAction::kGpuFail || e.action == FaultAction::kGpuRepair;
    if (rack) {
      if (e.rack < 0 || e.rack >= rack_count || e.node != -1 || e.gpu != -1) __builtin_trap();
      continue;
    }
    if (e.node < 0 || e.node >= node_count || e.rack != -1) __builtin_trap();
    if (gpu != (e.gpu >= 0)) __builtin_trap();
    if (gpu && e.gpu >= t.class_of(e.node).capacity.gpus) __builtin_trap();
    if (e.action == FaultAction::kDrain && e.duration <= gantry::Duration{}) __builtin_trap();
    if (e.action != FaultAction::kDrain && e.deadline != gantry::Duration{}) __builtin_trap();
  }
  return 0;
}
