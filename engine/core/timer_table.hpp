#pragma once
// The event loop's pending timers: one 32-byte slot per timer holding its callback and its
// sequence number (its place in insertion order, unique for the loop's life).
//
// Why a side table: the loop's radix heap moves every pending entry several times before it
// runs, so the entries it moves are kept to a key and a slot index (16 bytes) and the callback
// stays put here, written once when the timer is scheduled and read once when it runs. Freed
// slots are reused last in, first out, so a callback that schedules its successor writes the
// slot it was just read from, still in cache. The one cold read per event, at dispatch, is
// prefetched ahead of time on the queue's hint (prefetch()).
//
// A slot's sequence number is 0 while it is free or its timer cancelled, so an id (slot, seq)
// names a pending timer exactly when the slot still holds that seq: ids of timers that ran or
// were cancelled never match again, even after the slot is reused.
//
//   add, cancel, take, free        O(1)
//   memory                         32 bytes per slot; slots are never given back, so the table
//                                  is as large as the most timers ever pending at once
//
// Not thread-safe.

#include <cassert>
#include <cstdint>
#include <vector>

#include "engine/core/inline_callback.hpp"

namespace gantry {

class TimerTable {
 public:
  TimerTable() = default;
  TimerTable(const TimerTable&) = delete;
  TimerTable& operator=(const TimerTable&) = delete;
  ~TimerTable() {
    for (Slot& s : slots_)
      if (s.seq != 0) s.fn.release();
  }

  // Stores fn for timer `seq` (> 0) and returns its slot.
  uint32_t add(InlineCallback fn, uint64_t seq) {
    assert(seq != 0);
    uint32_t slot;
    if (free_.empty()) {
      assert(slots_.size() < UINT32_MAX && "at most 2^32 - 1 timers pending at once");
      slot = static_cast<uint32_t>(slots_.size());
      slots_.push_back(Slot{fn, seq});
    } else {
      slot = free_.back();
      free_.pop_back();
      slots_[slot] = Slot{fn, seq};
    }
    return slot;
  }

  // True if `slot` holds the pending timer `seq`.
  bool holds(uint32_t slot, uint64_t seq) const {
    return seq != 0 && slot < slots_.size() && slots_[slot].seq == seq;
  }

  // Drops the callback of the pending timer in `slot` now; the slot itself stays taken until
  // its queue entry comes up and the loop calls free(). Requires holds(slot, seq).
  void cancel(uint32_t slot) {
    Slot& s = slots_[slot];
    assert(s.seq != 0);
    s.fn.release();
    s.seq = 0;
  }

  // Whether the timer in `slot`, now at the front of the queue, was cancelled.
  bool cancelled(uint32_t slot) const { return slots_[slot].seq == 0; }

  // The callback of the (not cancelled) timer in `slot`; the slot is free again on return, so
  // the callback may schedule into it. The caller runs and then releases the callback.
  InlineCallback take(uint32_t slot) {
    Slot& s = slots_[slot];
    assert(s.seq != 0);
    const InlineCallback fn = s.fn;
    s.seq = 0;
    free_.push_back(slot);
    return fn;
  }

  // Frees the slot of a cancelled timer whose queue entry came up.
  void free(uint32_t slot) {
    assert(cancelled(slot));
    free_.push_back(slot);
  }

  // The slot's line will be read and written soon (take() or cancelled()).
  void prefetch(uint32_t slot) const { __builtin_prefetch(slots_.data() + slot, 1); }

 private:
  // 32 bytes, aligned to 32: two slots per cache line and none straddles two.
  struct alignas(32) Slot {
    InlineCallback fn;
    uint64_t seq;
  };
  static_assert(sizeof(Slot) == 32);

  std::vector<Slot> slots_;
  std::vector<uint32_t> free_;  // a stack: the slot freed last is reused first
};

}  // namespace gantry
