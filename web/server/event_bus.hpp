#pragma once
// Live updates for Server-Sent Events: the loop thread publishes state changes, each
// subscriber's HTTP thread waits for the ones after the last id it sent.
//
// Ids increase by one from `first_id`. `gantry serve` starts them at the wall clock's time in
// microseconds (first_id_from_clock()), so the ids of one run of the server are above those of
// every earlier run: a browser that reconnects after a restart with the Last-Event-ID of the
// previous run (issue 22) gets `reset` at once, never silence until the new ids pass its old
// one. (That holds while a run publishes fewer events than the microseconds it lasts, and the
// clock does not step back: an id above any this bus issued is a reset too.)
//
// The bus keeps the last `capacity` events, so a client that reconnects with Last-Event-ID
// gets exactly what it missed — unless it missed more than the buffer holds, or its id is not
// one this bus could have issued (an earlier run's, a later one's): then its batch says
// `reset` (the client reloads its state) and continues from the oldest event kept, or from
// now. Nothing is ever dropped for a subscriber that keeps up.
//
// Thread-safe. publish() is O(1) and never blocks on a subscriber; wait_after() blocks its
// caller only.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace gantry::web {

struct BusEvent {
  uint64_t id = 0;
  // "run", "task", "attempt", "cluster", "pipeline", "simulation", "sweep", "plan"
  std::string type;
  std::string data;  // JSON
};

class EventBus {
 public:
  // Microseconds since the Unix epoch now (about 1.8e15 in 2027: well within the 2^53 a
  // JavaScript number holds exactly).
  static uint64_t first_id_from_clock();

  explicit EventBus(size_t capacity = 65536, uint64_t first_id = first_id_from_clock());

  // Adds an event; returns its id.
  uint64_t publish(std::string type, std::string data);

  struct Batch {
    std::vector<BusEvent> events;  // ids after the caller's, in order, at most `max` of them
    bool reset = false;   // events after the caller's id were lost, or its id is not this bus's
    bool closed = false;  // the bus is closing: the subscriber should return
    uint64_t last = 0;    // where the caller is now: its next wait_after() is after this id
  };
  // Events with ids > `after`; waits up to `timeout` for the first one (a reset answers at once).
  Batch wait_after(uint64_t after, std::chrono::milliseconds timeout, size_t max = 1024);
  // Wakes every waiter with closed = true; later waits return at once.
  void close();

  // The id of the last event published (first_id - 1 before any).
  uint64_t last_id() const;

  // "id: 7\nevent: run\ndata: {...}\n\n" (the data has no newlines: it is compact JSON).
  static std::string format(const BusEvent& e);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<BusEvent> events_;
  size_t capacity_;
  uint64_t next_id_;
  bool closed_ = false;
};

}  // namespace gantry::web
