#pragma once
// HeldRuns: the runs a WriteBehindRunStore holds in memory until they are written, found by
// pipeline and logical time.
//
// Why not one hash map keyed by RunKey: a replay changes each run about 24 times, minutes of
// virtual time apart, and every lookup walked cold hash nodes (12 % of the scheduling thread
// in bench/pipelines_year.sh). Here a pipeline (the one asked for last is remembered) keeps
// its runs in a vector sorted by logical time, a few kilobytes searched by bisection that stay
// in cache; only the run itself is a separate allocation, so references stay valid until it
// is taken out.
//
// Thread safety: none; the write-behind store's caller thread only.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workflow/store/sqlite_run_store.hpp"

namespace gantry {

class HeldRuns {
 public:
  struct Entry {
    SqliteRunStore::RunRows rows;
    bool listed = false;  // on the store's list of finished runs to write
  };

  // The entry of (pipeline, logical_time); nullptr when not held.
  Entry* find(std::string_view pipeline, Time logical_time) const;
  // Holds `rows` (its run's key must not be held) and returns its entry.
  Entry& add(SqliteRunStore::RunRows rows);
  // Removes `entry` and returns its rows.
  SqliteRunStore::RunRows take(Entry& entry);
  // Calls f(Entry&) for every run held.
  template <typename F>
  void for_each(F&& f) {
    for (auto& [name, p] : pipelines_)
      for (auto& [t, entry] : p.runs) f(*entry);
  }

  // The latest logical time known to be taken for `pipeline` (add() and note_latest()).
  std::optional<Time> latest(std::string_view pipeline) const;
  void note_latest(std::string_view pipeline, Time logical_time);

 private:
  struct Pipeline {
    std::vector<std::pair<int64_t, std::unique_ptr<Entry>>> runs;  // by logical time (µs)
    std::optional<Time> latest;
  };
  Pipeline& pipeline(std::string_view name);        // added when new
  Pipeline* existing(std::string_view name) const;  // nullptr when new
  // The position of `micros` in p.runs (where it is or would go).
  using Slots = std::vector<std::pair<int64_t, std::unique_ptr<Entry>>>;
  static Slots::iterator position(Pipeline& p, int64_t micros);

  std::map<std::string, Pipeline, std::less<>> pipelines_;  // nodes stay where they are
  // The pipeline asked for last (a key of pipelines_ and its value): a lookup by name is a
  // dozen string comparisons, and the same pipeline is asked for several times in a row.
  mutable std::string_view last_name_;
  mutable Pipeline* last_ = nullptr;
};

}  // namespace gantry
