#pragma once
// Live updates for Server-Sent Events: the loop thread publishes state changes, each
// subscriber's HTTP thread waits for the ones after the last id it sent.
//
// Ids increase by one from 1. The bus keeps the last `capacity` events, so a client that
// reconnects with Last-Event-ID gets exactly what it missed — unless it missed more than the
// buffer holds: then its batch says `reset` (the client reloads its state) and continues from
// the oldest event kept. Nothing is ever dropped for a subscriber that keeps up.
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
  std::string type;  // "run", "task", "attempt", "cluster", "pipeline", "simulation"
  std::string data;  // JSON
};

class EventBus {
 public:
  explicit EventBus(size_t capacity = 65536);

  // Adds an event; returns its id.
  uint64_t publish(std::string type, std::string data);

  struct Batch {
    std::vector<BusEvent> events;  // ids after the caller's, in order, at most `max` of them
    bool reset = false;            // events after the caller's id were lost from the buffer
    bool closed = false;           // the bus is closing: the subscriber should return
  };
  // Events with ids > `after`; waits up to `timeout` for the first one.
  Batch wait_after(uint64_t after, std::chrono::milliseconds timeout, size_t max = 1024);
  // Wakes every waiter with closed = true; later waits return at once.
  void close();

  uint64_t last_id() const;

  // "id: 7\nevent: run\ndata: {...}\n\n" (the data has no newlines: it is compact JSON).
  static std::string format(const BusEvent& e);

 private:
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<BusEvent> events_;
  size_t capacity_;
  uint64_t next_id_ = 1;
  bool closed_ = false;
};

}  // namespace gantry::web
