#include "sim/node_pools.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

NodePoolDriver::NodePoolDriver(EventLoop& loop, TrainingWorld& world, const AutoscalingSpec& spec,
                               uint64_t seed)
    : loop_(loop),
      world_(world),
      specs_(spec.pools),
      autoscaler_(spec.pools, spec.autoscaler),
      meter_(spec.pools, loop.now()),
      states_(spec.pools.size()),
      logs_(spec.pools.size()),
      next_index_(spec.pools.size(), 0) {
  const RandomStreams streams(seed);
  for (size_t p = 0; p < specs_.size(); ++p) {
    rng_.push_back(streams.stream("pools/" + specs_[p].name));
    logs_[p].name = specs_[p].name;
    logs_[p].spot = specs_[p].spot();
    logs_[p].price_per_hour = specs_[p].price_per_hour;
  }
  world_.on_pending([this] { arm(); });
}

void NodePoolDriver::start() {
  for (size_t p = 0; p < specs_.size(); ++p)
    for (int i = 0; i < specs_[p].initial_nodes; ++i) {
      // Initial nodes are up at the start; a spot one still draws its reclaim.
      NodeDraw draw = draw_node(specs_[p], loop_.now(), rng_[p]);
      if (draw.reclaim) {
        const Duration delay = draw.up - loop_.now();
        draw.reclaim = *draw.reclaim - delay;
        draw.notice = std::max(loop_.now(), *draw.notice - delay);
      }
      draw.up = loop_.now();
      node_up(static_cast<int>(p), draw);
    }
  arm();
}

bool NodePoolDriver::pool_unsettled(int pool) const {
  // Nodes on their way, idle ones above the minimum to scale down, or a minimum to restore.
  const PoolState& s = states_[static_cast<size_t>(pool)];
  const int up = static_cast<int>(s.nodes.size());
  const int min = specs_[static_cast<size_t>(pool)].min_nodes;
  return s.provisioning > 0 || up > min || up + s.provisioning < min;
}

void NodePoolDriver::arm() {
  if (tick_armed_) return;
  bool needed = world_.busy() || !world_.pending_jobs().empty();
  for (size_t p = 0; p < specs_.size() && !needed; ++p)
    needed = pool_unsettled(static_cast<int>(p));
  if (!needed) return;
  tick_armed_ = true;
  const Time at = saturating_add(loop_.now(), kAutoscalerScanInterval);
  if (at <= kLatestTime)
    loop_.schedule_at(at, [this] {
      tick_armed_ = false;
      tick();
    });
}

void NodePoolDriver::tick() {
  std::vector<const JobSpec*> pending;
  pending.reserve(std::min<size_t>(world_.pending_jobs().size(),
                                   static_cast<size_t>(autoscaler_.config().max_gangs_per_call)));
  for (const JobId id : world_.pending_jobs()) {
    if (pending.size() >= static_cast<size_t>(autoscaler_.config().max_gangs_per_call)) break;
    pending.push_back(&world_.spec(id));
  }
  const AutoscalerDecision d = autoscaler_.run(world_.cluster(), states_, pending, loop_.now());
  for (const ScaleDown& down : d.scale_downs) gone(down.node, kReasonScaleDown);
  for (const ScaleUp& up : d.scale_ups) request(up.pool, up.count);
  // Waiting jobs that no pool could take wait for something else: the loop goes quiet unless
  // work is under way (on_pending() wakes it).
  if (world_.busy() || !d.scale_ups.empty()) {
    arm();
    return;
  }
  bool needed = false;
  for (size_t p = 0; p < specs_.size() && !needed; ++p)
    needed = pool_unsettled(static_cast<int>(p));
  if (needed) arm();
}

void NodePoolDriver::request(int pool, int count) {
  PoolState& s = states_[static_cast<size_t>(pool)];
  for (int i = 0; i < count; ++i) {
    const NodeDraw draw =
        draw_node(specs_[static_cast<size_t>(pool)], loop_.now(), rng_[static_cast<size_t>(pool)]);
    ++s.provisioning;
    if (draw.up <= kLatestTime)
      loop_.schedule_at(draw.up, [this, pool, draw] {
        --states_[static_cast<size_t>(pool)].provisioning;
        node_up(pool, draw);
      });
  }
}

void NodePoolDriver::node_up(int pool, const NodeDraw& draw) {
  const NodePoolSpec& spec = specs_[static_cast<size_t>(pool)];
  NodeInfo info;
  info.name = spec.name + "-" + std::to_string(next_index_[static_cast<size_t>(pool)]++);
  info.node_class = spec.node_class;
  info.rack = spec.rack;
  info.labels = pool_node_labels(spec);
  info.taints = spec.taints;
  const NodeId n = world_.add_node(std::move(info), spec.spot());
  if (pool_of_.size() <= static_cast<size_t>(n)) pool_of_.resize(static_cast<size_t>(n) + 1, -1);
  pool_of_[static_cast<size_t>(n)] = pool;
  states_[static_cast<size_t>(pool)].nodes.push_back(n);
  [[maybe_unused]] const Status up = meter_.node_up(pool, n, loop_.now());
  assert(up && "a new node");
  PoolLog& log = logs_[static_cast<size_t>(pool)];
  ++log.nodes_added;
  log.peak_nodes =
      std::max(log.peak_nodes, static_cast<int>(states_[static_cast<size_t>(pool)].nodes.size()));
  if (draw.notice && *draw.notice <= kLatestTime)
    loop_.schedule_at(std::max(*draw.notice, loop_.now()), [this, n] {
      if (pool_of_[static_cast<size_t>(n)] >= 0) world_.spot_notice(n);
    });
  if (draw.reclaim && *draw.reclaim <= kLatestTime)
    loop_.schedule_at(std::max(*draw.reclaim, loop_.now()), [this, n] {
      if (pool_of_[static_cast<size_t>(n)] < 0) return;  // scaled down before
      ++logs_[static_cast<size_t>(pool_of_[static_cast<size_t>(n)])].reclaims;
      gone(n, kReasonSpotReclaim);
      arm();  // the pool may be below its minimum now
    });
  arm();
}

void NodePoolDriver::gone(NodeId n, const std::string& reason) {
  const int pool = pool_of_[static_cast<size_t>(n)];
  assert(pool >= 0 && "a pool node");
  pool_of_[static_cast<size_t>(n)] = -1;
  std::vector<NodeId>& nodes = states_[static_cast<size_t>(pool)].nodes;
  nodes.erase(std::find(nodes.begin(), nodes.end(), n));
  [[maybe_unused]] const Status down = meter_.node_down(n, loop_.now());
  assert(down && "the node was up");
  ++logs_[static_cast<size_t>(pool)].nodes_removed;
  world_.remove_node(n, reason);
}

std::vector<PoolLog> NodePoolDriver::log(Time now) const {
  std::vector<PoolLog> out = logs_;
  for (size_t p = 0; p < out.size(); ++p) {
    const PoolCostMeter::Totals t = meter_.pool(static_cast<int>(p), now);
    out[p].node_hours = t.node_hours;
    out[p].cost = t.cost;
  }
  return out;
}

}  // namespace gantry
