#pragma once
// A monotone priority queue (a radix heap with 8-bit digits) for the event loop.
//
// Keys never go below the last key taken with top_key()/top_value() — exactly the event loop's
// "time never goes backwards" — which lets a radix heap beat a comparison heap. An item waits in
// the bucket named by the highest 8-bit digit in which its key differs from that last key
// (8 levels) and by its own value of that digit (256 values): all keys in a lower-numbered
// bucket are smaller. The next item comes from the "equal" bucket; when that is empty, the
// lowest non-empty bucket (found with a two-level bitmap) is emptied into lower ones around its
// minimum, which each bucket keeps up to date as items arrive. An item therefore moves at most
// 8 times in its life, and with pending times spread over 2^20 ticks (the benchmark's second
// of microseconds) twice: from level 2 to level 1, then to level 0 — whose buckets each hold a
// single key and so become the equal bucket without moving their items, as does a bucket
// holding a single item.
//
// Cache design (issue #7): items are 16 bytes — the key and a small value, for the event loop
// the index of the timer's callback in a side table — so a move copies a quarter of a cache
// line. Buckets are FIFOs of pooled blocks (block_fifo.hpp): emptying one returns its blocks to
// the pool as they are read and the lower buckets write into those same blocks, still in L1.
// Because the value usually points elsewhere, the queue tells a Hint (value) when an item is
// about to come out — when it lands in level 0 or in the equal bucket, or leaves a bucket that
// fits in one block (at most 63 items, which are, in some order, exactly the next items out) —
// so the owner can prefetch what the value points to, tens to hundreds of items ahead of use.
// 8-bit digits measured faster than 4-bit ones at 10^3, 10^5 and 10^6 pending (fewer moves;
// bench/RESULTS.md).
//
// Equal keys come out in push order (FIFO), which the loop's tie-breaking rule needs: items with
// equal keys always share a bucket, and appends, redistribution and splicing all keep order.
//
//   push                 O(1)
//   peek_key             O(1)  (bucket minima are kept on push)
//   top / pop            amortised O(8) item moves over an item's life; O(1) when the next key
//                        equals the last one, lies in a level-0 bucket or is alone in its bucket
//   memory               16 bytes per item, in 1 KiB blocks kept for reuse (block_fifo.hpp),
//                        plus 64 KiB of bucket heads
//
// Not thread-safe.

#include <array>
#include <bit>
#include <cassert>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "engine/core/block_fifo.hpp"

namespace gantry {

// The default Hint: nothing to prefetch.
struct NoPrefetchHint {
  template <typename Value>
  void operator()(const Value&) const {}
};

template <typename Value, typename Hint = NoPrefetchHint, int DigitBits = 8>
class MonotoneQueue {
  static_assert(std::is_trivially_copyable_v<Value>);
  static_assert(DigitBits >= 1 && DigitBits <= 8);

 public:
  explicit MonotoneQueue(Hint hint = Hint{}) : hint_(hint) {}

  bool empty() const { return size_ == 0; }
  size_t size() const { return size_; }

  // key >= the last key taken (asserted).
  void push(int64_t key, Value value) {
    const uint64_t k = to_unsigned(key);
    if (size_ == 0) last_ = 0;  // nothing waits: any key is fine, and buckets are empty
    assert(k >= last_ && "monotone: keys never go below the last one taken");
    place(Item{k, value}, false);
    ++size_;
  }

  // The smallest key, without committing to it. Requires !empty(). Unlike top_key() this does
  // not raise the queue's floor: keys down to the last one taken may still be pushed after it,
  // which an event loop needs when it looks at the next timer and then, before that timer is
  // due, something schedules an earlier one.
  int64_t peek_key() const {
    assert(size_ > 0);
    if (!Pool::empty(equal_)) return to_signed(last_);
    return to_signed(buckets_[static_cast<size_t>(lowest_nonempty())].min);
  }

  // The smallest key and, among equal keys, the earliest pushed. Requires !empty(). Raises the
  // floor to that key: from then on keys below it must not be pushed (asserted).
  int64_t top_key() { return to_signed(front().key); }
  Value& top_value() { return front().value; }

  void pop() {
    front();
    pool_.pop_front(equal_);
    --size_;
  }

 private:
  struct Item {
    uint64_t key;
    Value value;
  };
  using Pool = BlockFifoPool<Item>;

  // 32 bytes, two per cache line.
  struct alignas(32) Bucket {
    typename Pool::Fifo items;
    uint64_t min = UINT64_MAX;  // of the keys in items
  };

  static constexpr int kDigitBits = DigitBits;
  static constexpr int kDigits = 1 << kDigitBits;
  static constexpr int kLevels = (64 + kDigitBits - 1) / kDigitBits;
  static constexpr int kBuckets = kLevels * kDigits;
  static constexpr int kWords = (kBuckets + 63) / 64;  // of the bitmap, at most 64

  static uint64_t to_unsigned(int64_t k) { return static_cast<uint64_t>(k) ^ (1ull << 63); }
  static int64_t to_signed(uint64_t k) { return static_cast<int64_t>(k ^ (1ull << 63)); }

  // `imminent`: the item leaves a small bucket, so it is among the next few out.
  void place(const Item& it, bool imminent) {
    const uint64_t diff = it.key ^ last_;
    if (diff == 0) {
      pool_.push(equal_, it);
      hint_(it.value);
      return;
    }
    const int level = (63 - std::countl_zero(diff)) / kDigitBits;
    const int digit = static_cast<int>((it.key >> (level * kDigitBits)) & (kDigits - 1));
    const int b = level * kDigits + digit;
    Bucket& bucket = buckets_[static_cast<size_t>(b)];
    pool_.push(bucket.items, it);
    bucket.min = it.key < bucket.min ? it.key : bucket.min;
    nonempty_[static_cast<size_t>(b / 64)] |= 1ull << (b % 64);
    words_ |= 1ull << (b / 64);
    if (imminent || level == 0) hint_(it.value);
  }

  int lowest_nonempty() const {
    if (words_ == 0) return -1;
    const int w = std::countr_zero(words_);
    return w * 64 + std::countr_zero(nonempty_[static_cast<size_t>(w)]);
  }

  // Ensures the equal bucket holds the next item and returns it.
  Item& front() {
    assert(size_ > 0);
    if (!Pool::empty(equal_)) return Pool::front(equal_);
    return refill();
  }

  // Out of line: the common case above stays small enough to inline.
  [[gnu::noinline]] Item& refill() {
    const int b = lowest_nonempty();
    assert(b >= 0);
    Bucket& bucket = buckets_[static_cast<size_t>(b)];
    uint64_t& word = nonempty_[static_cast<size_t>(b / 64)];
    word &= ~(1ull << (b % 64));
    if (word == 0) words_ &= ~(1ull << (b / 64));
    last_ = bucket.min;
    // Every item of the bucket shares the key bits above its level and its digit with the new
    // last key, so each goes to a strictly lower bucket; in level 0 that leaves the key itself,
    // and a lone item is the minimum: either way the bucket becomes the equal one as it is.
    if (b < kDigits || Pool::single(bucket.items)) {
      Pool::splice(equal_, bucket.items);
    } else {
      // A bucket that fits in one block holds, in some order, the next few items out.
      const bool imminent = Pool::one_block(bucket.items);
      pool_.drain(bucket.items, [&](const Item& it) { place(it, imminent); });
    }
    bucket.min = UINT64_MAX;
    return Pool::front(equal_);
  }

  Pool pool_;
  typename Pool::Fifo equal_;                                    // keys equal to last_
  std::vector<Bucket> buckets_ = std::vector<Bucket>(kBuckets);  // 64 KiB: not on the stack
  std::array<uint64_t, kWords> nonempty_{};
  uint64_t words_ = 0;  // bit w: nonempty_[w] != 0
  uint64_t last_ = 0;
  size_t size_ = 0;
  Hint hint_;
};

}  // namespace gantry
