#include "web/server/event_bus.hpp"

namespace gantry::web {

uint64_t EventBus::first_id_from_clock() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}

EventBus::EventBus(size_t capacity, uint64_t first_id)
    : capacity_(capacity == 0 ? 1 : capacity), next_id_(first_id == 0 ? 1 : first_id) {}

uint64_t EventBus::publish(std::string type, std::string data) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    events_.push_back(BusEvent{id, std::move(type), std::move(data)});
    if (events_.size() > capacity_) events_.pop_front();
  }
  cv_.notify_all();
  return id;
}

EventBus::Batch EventBus::wait_after(uint64_t after, std::chrono::milliseconds timeout,
                                     size_t max) {
  std::unique_lock lock(mu_);
  // Something to say as soon as the last id is not the caller's: events after it, or a reset.
  cv_.wait_for(lock, timeout, [&] { return closed_ || next_id_ - 1 != after; });
  Batch batch;
  batch.last = after;
  if (closed_) {
    batch.closed = true;
    return batch;
  }
  const uint64_t last = next_id_ - 1;
  if (after > last) {  // never issued here: an earlier run's id (or a later one's)
    batch.reset = true;
    batch.last = last;
    return batch;
  }
  // Every event after `known` is still in the buffer.
  const uint64_t known = events_.empty() ? last : events_.front().id - 1;
  size_t start = 0;
  if (after < known) {
    batch.reset = true;  // (after, known] fell out of the buffer, or came before this bus
    batch.last = known;
  } else {
    start = static_cast<size_t>(after - known);
  }
  for (size_t i = start; i < events_.size() && batch.events.size() < max; ++i)
    batch.events.push_back(events_[i]);
  if (!batch.events.empty()) batch.last = batch.events.back().id;
  return batch;
}

void EventBus::close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

uint64_t EventBus::last_id() const {
  std::lock_guard lock(mu_);
  return next_id_ - 1;
}

std::string EventBus::format(const BusEvent& e) {
  return "id: " + std::to_string(e.id) + "\nevent: " + e.type + "\ndata: " + e.data + "\n\n";
}

}  // namespace gantry::web
