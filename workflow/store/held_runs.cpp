#include "workflow/store/held_runs.hpp"

#include <algorithm>
#include <cassert>

namespace gantry {

HeldRuns::Pipeline* HeldRuns::existing(std::string_view name) const {
  if (last_ != nullptr && last_name_ == name) return last_;
  const auto it = pipelines_.find(name);
  if (it == pipelines_.end()) return nullptr;
  last_name_ = it->first;
  return last_ = const_cast<Pipeline*>(&it->second);  // this object's own, mutable member
}

HeldRuns::Pipeline& HeldRuns::pipeline(std::string_view name) {
  if (Pipeline* p = existing(name)) return *p;
  const auto it = pipelines_.emplace(std::string(name), Pipeline{}).first;
  last_name_ = it->first;
  return *(last_ = &it->second);
}

HeldRuns::Slots::iterator HeldRuns::position(Pipeline& p, int64_t micros) {
  // A schedule's runs come in order: the new one usually goes last.
  if (p.runs.empty() || p.runs.back().first < micros) return p.runs.end();
  return std::lower_bound(p.runs.begin(), p.runs.end(), micros,
                          [](const auto& entry, int64_t t) { return entry.first < t; });
}

HeldRuns::Entry* HeldRuns::find(std::string_view name, Time logical_time) const {
  Pipeline* p = existing(name);
  if (p == nullptr) return nullptr;
  const auto it = position(*p, logical_time.micros());
  return it != p->runs.end() && it->first == logical_time.micros() ? it->second.get() : nullptr;
}

HeldRuns::Entry& HeldRuns::add(SqliteRunStore::RunRows rows) {
  Pipeline& p = pipeline(rows.run.pipeline);
  const int64_t t = rows.run.logical_time.micros();
  const auto it = position(p, t);
  assert(it == p.runs.end() || it->first != t);
  if (!p.latest || *p.latest < rows.run.logical_time) p.latest = rows.run.logical_time;
  auto entry = std::make_unique<Entry>();
  entry->rows = std::move(rows);
  return *p.runs.emplace(it, t, std::move(entry))->second;
}

SqliteRunStore::RunRows HeldRuns::take(Entry& entry) {
  Pipeline& p = pipeline(entry.rows.run.pipeline);
  const auto it = position(p, entry.rows.run.logical_time.micros());
  assert(it != p.runs.end() && it->second.get() == &entry);
  SqliteRunStore::RunRows rows = std::move(entry.rows);
  p.runs.erase(it);
  return rows;
}

std::optional<Time> HeldRuns::latest(std::string_view name) const {
  const Pipeline* p = existing(name);
  return p != nullptr ? p->latest : std::nullopt;
}

void HeldRuns::note_latest(std::string_view name, Time logical_time) {
  Pipeline& p = pipeline(name);
  if (!p.latest || *p.latest < logical_time) p.latest = logical_time;
}

}  // namespace gantry
