#pragma once
// Many FIFO queues of small trivially copyable items sharing one pool of fixed-size blocks: the
// buckets of the event loop's radix heap (monotone_queue.hpp).
//
// Why blocks and not a std::vector per queue: a radix heap empties a whole bucket into lower
// ones at a time. Here every block it finishes reading goes back to the pool, last in first out,
// and is the next block a destination queue takes — so items are written to lines that were
// just read and are still in L1, not to another vector's cold (or freshly mapped) buffer. No
// queue ever copies its items to grow, and buckets share memory as they fill and empty.
//
//   push, front, pop_front                  O(1)
//   drain (visit every item in order)       O(n), each block back to the pool once read
//   splice into an empty queue              O(1)
//
// Memory: blocks return to the system only with the pool, so the pool's footprint is the peak
// number of items queued at once plus at most one partly filled block per queue.
// Not thread-safe.

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace gantry {

template <typename T>
class BlockFifoPool {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  // 1 KiB: a whole number of cache lines, big enough that the link is 1 % of a block, small
  // enough that a queue holding one item wastes little.
  static constexpr size_t kBlockBytes = 1024;
  static constexpr uint32_t kPerBlock =
      static_cast<uint32_t>((kBlockBytes - sizeof(void*)) / sizeof(T));
  static_assert(kPerBlock >= 2);

  struct alignas(64) Block {
    Block* next;
    T items[kPerBlock];
  };

  // A queue's state; empty exactly when head is null. Default-constructed: empty.
  struct Fifo {
    Block* head = nullptr;
    Block* tail = nullptr;
    uint32_t begin = 0;  // first item in head
    uint32_t end = 0;    // one past the last item in tail
  };

  BlockFifoPool() = default;
  BlockFifoPool(const BlockFifoPool&) = delete;
  BlockFifoPool& operator=(const BlockFifoPool&) = delete;

  static bool empty(const Fifo& q) { return q.head == nullptr; }

  void push(Fifo& q, const T& item) {
    if (q.tail == nullptr || q.end == kPerBlock) {
      Block* b = take();
      b->next = nullptr;
      if (q.tail == nullptr) {
        q.head = b;
        q.begin = 0;
      } else {
        q.tail->next = b;
      }
      q.tail = b;
      q.end = 0;
    }
    q.tail->items[q.end++] = item;
  }

  // Exactly one item / at most one block's worth of items.
  static bool single(const Fifo& q) { return q.head == q.tail && q.end - q.begin == 1; }
  static bool one_block(const Fifo& q) { return q.head == q.tail; }

  // The oldest item. Requires !empty(q).
  static T& front(Fifo& q) {
    assert(!empty(q));
    return q.head->items[q.begin];
  }

  // Removes the oldest item. Requires !empty(q).
  void pop_front(Fifo& q) {
    assert(!empty(q));
    ++q.begin;
    if (q.head == q.tail) {
      if (q.begin < q.end) return;
      give(q.head);
      q = Fifo{};
      return;
    }
    if (q.begin < kPerBlock) return;
    Block* done = q.head;
    q.head = done->next;
    q.begin = 0;
    give(done);
  }

  // Calls f(item) for every item of q, oldest first, and leaves q empty. Each block goes back
  // to the pool as soon as it has been read, so f may push the items into other queues of this
  // pool and reuse those blocks at once. f must not push into q itself.
  template <typename F>
  void drain(Fifo& q, F&& f) {
    const Fifo all = q;
    q = Fifo{};
    uint32_t i = all.begin;
    for (Block* b = all.head; b != nullptr;) {
      Block* const next = b->next;  // give(b) overwrites the link
      const uint32_t end = b == all.tail ? all.end : kPerBlock;
      for (; i < end; ++i) f(b->items[i]);
      give(b);
      b = next;
      i = 0;
    }
  }

  // Moves every item of `from` to `to`, which must be empty, without touching the items.
  static void splice(Fifo& to, Fifo& from) {
    assert(empty(to));
    to = from;
    from = Fifo{};
  }

  // Blocks allocated so far (in use, free or never used yet): at most this × kBlockBytes of
  // memory.
  size_t blocks_allocated() const { return chunks_.size() * kBlocksPerChunk; }

 private:
  static constexpr size_t kBlocksPerChunk = 64;  // 64 KiB per allocation

  Block* take() {
    if (free_ != nullptr) {
      Block* b = free_;
      free_ = b->next;
      return b;
    }
    if (fresh_ == fresh_end_) grow();
    return fresh_++;
  }

  void give(Block* b) {
    b->next = free_;
    free_ = b;
  }

  // Blocks are carved from a chunk only when first needed, so a new pool touches one block's
  // pages, not the chunk's (a loop that never holds many timers never pays for them).
  void grow() {
    chunks_.push_back(std::unique_ptr<Block[]>(new Block[kBlocksPerChunk]));
    fresh_ = chunks_.back().get();
    fresh_end_ = fresh_ + kBlocksPerChunk;
  }

  std::vector<std::unique_ptr<Block[]>> chunks_;
  Block* free_ = nullptr;   // a stack: the block freed last is taken first
  Block* fresh_ = nullptr;  // never used yet, up to fresh_end_, in the last chunk
  Block* fresh_end_ = nullptr;
};

}  // namespace gantry
