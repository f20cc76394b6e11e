#include "workflow/runner/autosize.hpp"

#include <algorithm>

namespace gantry {

void Autosizer::prune(History& h, Time now) const {
  const Time cutoff = now - config_.window;  // samples at or before the cutoff are out
  while (!h.times.empty() && h.times.front() <= cutoff) h.times.pop_front();
  while (!h.cpu_max.empty() && h.cpu_max.front().at <= cutoff) h.cpu_max.pop_front();
  while (!h.mem_max.empty() && h.mem_max.front().at <= cutoff) h.mem_max.pop_front();
  h.count = h.times.size();
}

void Autosizer::record_success(const std::string& key, Time at, const Resources& used) {
  History& h = history_[key];
  h.times.push_back(at);
  for (auto* q : {&h.cpu_max, &h.mem_max}) {
    int64_t v = q == &h.cpu_max ? used.cpu_milli : used.memory_bytes;
    while (!q->empty() && q->back().value <= v) q->pop_back();
    q->push_back(Sample{at, v});
  }
  h.count = h.times.size();
}

Resources Autosizer::requests(const std::string& key, Time now, const Resources& declared) {
  auto it = history_.find(key);
  if (it == history_.end()) return declared;
  History& h = it->second;
  prune(h, now);
  if (static_cast<int>(h.count) < config_.min_successes) return declared;
  auto sized = [&](int64_t max_used, int64_t headroom, int64_t cap) {
    if (cap <= 0) return cap;
    // ceil(factor × max_used) in integers: factor is in tenths.
    int64_t want = (max_used * config_.factor_tenths + 9) / 10 + headroom;
    return std::min(cap, want);
  };
  Resources r = declared;
  r.cpu_milli = sized(h.cpu_max.front().value, config_.cpu_headroom_milli, declared.cpu_milli);
  r.memory_bytes =
      sized(h.mem_max.front().value, config_.memory_headroom_bytes, declared.memory_bytes);
  return r;
}

}  // namespace gantry
