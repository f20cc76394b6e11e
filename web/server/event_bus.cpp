#include "web/server/event_bus.hpp"

namespace gantry::web {

EventBus::EventBus(size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

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
  cv_.wait_for(lock, timeout, [&] { return closed_ || next_id_ - 1 > after; });
  Batch batch;
  if (closed_) {
    batch.closed = true;
    return batch;
  }
  if (events_.empty() || next_id_ - 1 <= after) return batch;
  const uint64_t oldest = events_.front().id;
  size_t start = 0;
  if (after + 1 < oldest) {
    batch.reset = true;  // (after, oldest) fell out of the buffer
  } else {
    start = static_cast<size_t>(after + 1 - oldest);
  }
  for (size_t i = start; i < events_.size() && batch.events.size() < max; ++i)
    batch.events.push_back(events_[i]);
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
