#include "engine/policy/autoscale/pool_cost_meter.hpp"

#include <string>

namespace gantry {

namespace {
constexpr double kMicrosPerHour = 3'600e6;
}

PoolCostMeter::PoolCostMeter(const std::vector<NodePoolSpec>& pools, Time start) : start_(start) {
  for (const NodePoolSpec& p : pools) pools_.push_back(Pool{p.price_per_hour, p.spot(), 0, 0, 0});
}

Status PoolCostMeter::node_up(int pool, NodeId node, Time t) {
  if (pool < 0 || static_cast<size_t>(pool) >= pools_.size())
    return Status::error("unknown node pool " + std::to_string(pool));
  if (t < start_) return Status::error("node " + std::to_string(node) + " up before the start");
  if (!up_.emplace(node, Up{pool, t}).second)
    return Status::error("node " + std::to_string(node) + " is up already");
  Pool& p = pools_[static_cast<size_t>(pool)];
  ++p.open;
  p.open_start += (t - start_).micros();
  return Status::ok();
}

Status PoolCostMeter::node_down(NodeId node, Time t) {
  const auto it = up_.find(node);
  if (it == up_.end()) return Status::error("node " + std::to_string(node) + " is not up");
  if (t < it->second.at)
    return Status::error("node " + std::to_string(node) + " down before it was up");
  Pool& p = pools_[static_cast<size_t>(it->second.pool)];
  --p.open;
  p.open_start -= (it->second.at - start_).micros();
  p.closed_us += (t - it->second.at).micros();
  up_.erase(it);
  return Status::ok();
}

PoolCostMeter::Totals PoolCostMeter::pool(int index, Time now) const {
  const Pool& p = pools_[static_cast<size_t>(index)];
  const int64_t open_us = int64_t{p.open} * (now - start_).micros() - p.open_start;
  Totals t;
  t.node_hours = static_cast<double>(p.closed_us + open_us) / kMicrosPerHour;
  t.cost = t.node_hours * p.price;
  return t;
}

PoolCostMeter::Split PoolCostMeter::totals(Time now) const {
  Split s;
  for (size_t i = 0; i < pools_.size(); ++i) {
    const Totals t = pool(static_cast<int>(i), now);
    Totals& side = pools_[i].spot ? s.spot : s.on_demand;
    for (Totals* into : {&s.all, &side}) {
      into->node_hours += t.node_hours;
      into->cost += t.cost;
    }
  }
  return s;
}

}  // namespace gantry
