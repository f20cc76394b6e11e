#include "sim/fault_events.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>

#include "engine/config/config_errors.hpp"
#include "engine/config/config_fields.hpp"
#include "engine/config/quote.hpp"
#include "engine/config/reader.hpp"
#include "engine/config/units.hpp"

namespace gantry {

namespace {

constexpr std::string_view kAtExpected =
    "an RFC 3339 time such as 2026-01-02T03:00:00Z or a duration from the scenario's start such "
    "as 30h";

struct EventContext {
  const Topology& topology;
  Time start;
  std::optional<Time> end;
  std::map<std::string, NodeId, std::less<>> nodes;  // by name
};

// `at`: an instant has a ':' (RFC 3339 always writes one in its time), a duration never does.
Time read_at(const ConfigNode& n, const EventContext& ctx) {
  if (!n.is_scalar()) n.as_time();  // throws "expected an RFC 3339 time ..., got a map"
  const std::string text = n.as_string();
  if (text.find(':') != std::string::npos) {
    const Time t = n.as_time();
    if (t < ctx.start)
      n.fail("the event is before the scenario starts (" + format_rfc3339(ctx.start) + ")");
    return t;
  }
  const Result<Duration> offset = parse_duration(text, kMaxDuration);
  if (!offset)
    n.fail("expected " + std::string(kAtExpected) + ", got " + quote_for_message(text) + " (" +
           offset.error() + ")");
  const std::optional<Time> t = checked_add(ctx.start, offset.value());
  if (!t || *t > kLatestTime)
    n.fail("the offset puts the event past " + format_rfc3339(kLatestTime) +
           ", the latest instant Gantry simulates");
  return *t;
}

NodeId read_node(const ConfigNode& n, const EventContext& ctx) {
  const std::string name = n.as_name();
  const auto it = ctx.nodes.find(name);
  if (it == ctx.nodes.end()) n.fail("no node named " + quote_for_message(name) + " in the cluster");
  return it->second;
}

RackId read_rack(const ConfigNode& n, const EventContext& ctx) {
  const std::string name = n.as_name();
  const std::vector<std::string>& racks = ctx.topology.racks;
  const auto it = std::find(racks.begin(), racks.end(), name);
  if (it == racks.end()) n.fail("no rack named " + quote_for_message(name) + " in the cluster");
  return static_cast<RackId>(it - racks.begin());
}

// What each action takes.
struct Shape {
  bool node = false;
  bool rack = false;
  bool gpu = false;
  bool for_optional = false;  // down and fail actions
  bool for_required = false;  // drain
  bool deadline = false;      // drain
};

Shape shape_of(FaultAction a) {
  switch (a) {
    case FaultAction::kNodeDown:
      return Shape{.node = true, .for_optional = true};
    case FaultAction::kNodeUp:
      return Shape{.node = true};
    case FaultAction::kRackDown:
      return Shape{.rack = true, .for_optional = true};
    case FaultAction::kRackUp:
      return Shape{.rack = true};
    case FaultAction::kGpuFail:
      return Shape{.node = true, .gpu = true, .for_optional = true};
    case FaultAction::kGpuRepair:
      return Shape{.node = true, .gpu = true};
    case FaultAction::kDrain:
      return Shape{.node = true, .for_required = true, .deadline = true};
  }
  return Shape{};
}

// The event, or nullopt when it is after the scenario's end (reported in `skipped`) or wrong
// (reported in `errors`). Its fields are checked all the same.
std::optional<FaultEvent> read_event(const ConfigNode& node, const EventContext& ctx,
                                     std::vector<InputError>* skipped, ConfigErrors& errors) {
  const size_t before = errors.size();
  const ConfigFields m(node, {"at", "action", "node", "rack", "gpu", "for", "deadline"}, errors);
  if (!m.valid()) return std::nullopt;
  FaultEvent e;
  e.cause = "injected";
  m.read_required("at", [&](const ConfigNode& n) { e.at = read_at(n, ctx); });
  std::string word;
  bool known = false;
  m.read_required("action", [&](const ConfigNode& n) {
    e.action = n.as_enum<FaultAction>({{"node-down", FaultAction::kNodeDown},
                                       {"node-up", FaultAction::kNodeUp},
                                       {"rack-down", FaultAction::kRackDown},
                                       {"rack-up", FaultAction::kRackUp},
                                       {"gpu-fail", FaultAction::kGpuFail},
                                       {"gpu-repair", FaultAction::kGpuRepair},
                                       {"drain", FaultAction::kDrain}});
    word = to_string(e.action);
    known = true;
  });
  if (!known) return std::nullopt;  // which fields the action takes is not known

  const Shape shape = shape_of(e.action);
  const auto refuse = [&](std::string_view key, bool allowed) {
    if (allowed) return;
    m.read(key, [&](const ConfigNode& n) { n.fail(word + " does not take " + std::string(key)); });
  };
  refuse("node", shape.node);
  refuse("rack", shape.rack);
  refuse("gpu", shape.gpu);
  refuse("for", shape.for_optional || shape.for_required);
  refuse("deadline", shape.deadline);

  const bool node_ok = shape.node && m.read_required("node", [&](const ConfigNode& n) {
    e.node = read_node(n, ctx);
  });
  if (shape.rack) m.read_required("rack", [&](const ConfigNode& n) { e.rack = read_rack(n, ctx); });
  if (shape.gpu)
    m.read_required("gpu", [&](const ConfigNode& n) {
      const int64_t index = n.as_int(0, std::numeric_limits<int32_t>::max());
      e.gpu = static_cast<int>(index);
      if (!node_ok) return;  // the node's own error is reported
      const int gpus = ctx.topology.class_of(e.node).capacity.gpus;
      const std::string& name = ctx.topology.nodes[static_cast<size_t>(e.node)].name;
      if (gpus <= 0) n.fail("node " + quote_for_message(name) + " has no GPUs");
      if (index >= gpus)
        n.fail("node " + quote_for_message(name) + " has " + std::to_string(gpus) +
               " GPUs, numbered 0 to " + std::to_string(gpus - 1) + "; got " +
               std::to_string(index));
    });
  if (shape.for_required)
    m.read_required("for", [&](const ConfigNode& n) { e.duration = n.as_positive_duration(); });
  else if (shape.for_optional)
    m.read("for", [&](const ConfigNode& n) { e.duration = n.as_positive_duration(); });
  if (shape.deadline)
    m.read("deadline", [&](const ConfigNode& n) { e.deadline = n.as_duration(); });

  if (errors.size() != before) return std::nullopt;
  if (ctx.end && e.at > *ctx.end) {
    if (skipped != nullptr) {
      const ConfigNode at = *m.optional("at");
      skipped->emplace_back(at.location(), at.path(),
                            "the event is after the scenario ends (" + format_rfc3339(*ctx.end) +
                                "), so it does not happen");
    }
    return std::nullopt;
  }
  return e;
}

}  // namespace

std::vector<FaultEvent> load_fault_events_text(const std::string& text,
                                               const std::string& file_name,
                                               const Topology& topology, Time scenario_start,
                                               std::optional<Time> scenario_end,
                                               std::vector<InputError>* skipped) {
  const ConfigNode doc = parse_yaml_document(text, file_name);
  EventContext ctx{topology, scenario_start, scenario_end, {}};
  for (size_t n = 0; n < topology.nodes.size(); ++n)
    ctx.nodes.emplace(topology.nodes[n].name, static_cast<NodeId>(n));
  std::vector<FaultEvent> events;
  ConfigErrors errors;
  errors.attempt([&] {
    for (const ConfigNode& item : doc.as_sequence())
      if (auto e = read_event(item, ctx, skipped, errors)) events.push_back(std::move(*e));
  });
  errors.throw_if_any({file_name});
  // Events at one instant apply in file order; stable_sort keeps it.
  std::stable_sort(events.begin(), events.end(),
                   [](const FaultEvent& x, const FaultEvent& y) { return x.at < y.at; });
  return events;
}

std::vector<FaultEvent> load_fault_events(const std::string& path, const Topology& topology,
                                          Time scenario_start, std::optional<Time> scenario_end,
                                          std::vector<InputError>* skipped) {
  return load_fault_events_text(read_text_file(path), path, topology, scenario_start, scenario_end,
                                skipped);
}

}  // namespace gantry
