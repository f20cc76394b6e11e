#include "sim/simulation_log.hpp"

#include <algorithm>

#include "engine/cluster/resources.hpp"

namespace gantry {

void LogDigest::Integral::set(Time start, Time t, double v) {
  // As TimeWeighted::integral(start, end): values set at or before `start` only decide the
  // value in force at start; each later one closes the segment [from, t) of the value before.
  if (t > start) {
    total_us += value * static_cast<double>((t - std::max(from, start)).micros());
    from = t;
  }
  value = v;
}

double LogDigest::Integral::average(Time start, Time end) const {
  if (end <= start) return value;
  const Time since = std::max(from, start);
  const double integral = (total_us + value * static_cast<double>((end - since).micros())) / 1e6;
  return integral / (end - start).seconds();
}

void SimulationLog::begin(Time start, size_t gpu_types) {
  digest.start = start;
  digest.allocated.assign(gpu_types, LogDigest::Integral{0, start, 0});
  digest.busy.assign(gpu_types, LogDigest::Integral{0, start, 0});
}

void SimulationLog::record_event(const SimEvent& e) {
  for (const uint64_t v : {static_cast<uint64_t>(e.time.micros()), static_cast<uint64_t>(e.kind),
                           static_cast<uint64_t>(e.job), static_cast<uint64_t>(e.detail)})
    LogDigest::fnv_mix(digest.events_fnv, v);
  if (sink != nullptr) {
    sink->event(e);
  } else {
    events.push_back(e);
  }
}

void SimulationLog::record_series(const SeriesPoint& p) {
  if (!instant_.empty() && instant_.front().time != p.time) flush_series();
  for (SeriesPoint& held : instant_) {
    if (held.type == p.type) {
      held = p;
      return;
    }
  }
  instant_.push_back(p);
}

void SimulationLog::flush_series() {
  for (const SeriesPoint& p : instant_) {
    const auto type = static_cast<size_t>(p.type);
    if (type >= digest.allocated.size()) {
      digest.allocated.resize(type + 1, LogDigest::Integral{0, digest.start, 0});
      digest.busy.resize(type + 1, LogDigest::Integral{0, digest.start, 0});
    }
    digest.allocated[type].set(digest.start, p.time,
                               static_cast<double>(p.allocated_milli) / kMilliPerGpu);
    digest.busy[type].set(digest.start, p.time, static_cast<double>(p.busy_milli) / kMilliPerGpu);
    if (sink != nullptr) {
      sink->series(p);
    } else {
      series.push_back(p);
    }
  }
  instant_.clear();
}

}  // namespace gantry
