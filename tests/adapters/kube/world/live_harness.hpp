#pragma once
// Runs the live world against the fake API server on a virtual-time event loop, so a live
// run is as repeatable as a simulation: virtual time moves on (EventLoop::run_one) only when
// everything outside the loop has settled — no API call in flight, every watch has written
// what concerns it, every informer has dispatched what it read, and the loop has run every
// post and every timer due now. Nothing waits on a clock: each step blocks on the thing itself.

#include <functional>
#include <string>
#include <tuple>
#include <vector>

#include "adapters/kube/api_workers.hpp"
#include "adapters/kube/informer.hpp"
#include "engine/core/event_loop.hpp"
#include "tests/adapters/kube/fake_api_server.hpp"

namespace gantry::kube::testing {

struct WatchedInformer {
  const Informer* informer;
  std::string path;            // as the fake counts it
  std::string field_selector;  // decoded
};

class LiveHarness {
 public:
  LiveHarness(EventLoop& loop, FakeApiServer& fake) : loop_(loop), fake_(fake) {}

  void add(ApiWorkers& workers) { workers_.push_back(&workers); }
  void add(const Informer& informer, std::string path, std::string field_selector = {}) {
    informers_.push_back({&informer, std::move(path), std::move(field_selector)});
  }

  // Until nothing moves at the current virtual time.
  void settle() {
    for (;;) {
      const uint64_t ran = loop_.dispatched();
      const int64_t rv = fake_.resource_version();
      for (ApiWorkers* w : workers_) w->wait_idle();
      fake_.wait_watches_caught_up();
      for (const WatchedInformer& i : informers_)
        const_cast<Informer*>(i.informer)
            ->wait_for_watch_lines(fake_.watch_lines_written(i.path, i.field_selector));
      loop_.run_until(loop_.now());
      bool idle = true;
      for (ApiWorkers* w : workers_) idle = idle && w->in_flight() == 0;
      if (idle && loop_.dispatched() == ran && fake_.resource_version() == rv) return;
    }
  }

  // Settles, then steps virtual time event by event until `until` or nothing is left.
  void run_until(Time until) {
    settle();
    while (loop_.pending() > 0 && next_before(until)) {
      loop_.run_one();
      settle();
    }
  }

 private:
  bool next_before(Time until) const { return loop_.now() <= until; }

  EventLoop& loop_;
  FakeApiServer& fake_;
  std::vector<ApiWorkers*> workers_;
  std::vector<WatchedInformer> informers_;
};

}  // namespace gantry::kube::testing
