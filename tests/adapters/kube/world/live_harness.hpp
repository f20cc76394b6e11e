#pragma once
// Runs the live world against the fake API server on a virtual-time event loop, so a live
// run is as repeatable as a simulation: virtual time moves on (EventLoop::run_one) only when
// everything outside the loop has settled — no API call in flight, every watch has written
// what concerns it, every informer has dispatched what it read, and the loop has run every
// post and every timer due now. Nothing waits on a clock: each step blocks (or, for replicas
// watching the same objects, spins) on the thing itself.

#include <functional>
#include <map>
#include <string>
#include <thread>
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
  std::string label_selector;  // decoded
};

class LiveHarness {
 public:
  LiveHarness(EventLoop& loop, FakeApiServer& fake) : loop_(loop), fake_(fake) {}

  void add(ApiWorkers& workers) { workers_.push_back(&workers); }
  void add(const Informer& informer, std::string path, std::string field_selector = {},
           std::string label_selector = {}) {
    informers_.push_back(
        {&informer, std::move(path), std::move(field_selector), std::move(label_selector)});
  }

  // Until nothing moves at the current virtual time.
  void settle() {
    for (;;) {
      const uint64_t ran = loop_.dispatched();
      const int64_t rv = fake_.resource_version();
      for (ApiWorkers* w : workers_) w->wait_idle();
      fake_.wait_watches_caught_up();
      wait_for_informers();
      loop_.run_until(loop_.now());
      bool idle = true;
      for (ApiWorkers* w : workers_) idle = idle && w->in_flight() == 0;
      if (idle && loop_.dispatched() == ran && fake_.resource_version() == rv) return;
    }
  }

  // Settles, then steps virtual time event by event while the next is due at or before
  // `until`; the clock ends at `until` (as EventLoop::run_until leaves it), so that a test may
  // schedule anything after it. A marker timer at `until` keeps every step at or before it:
  // looking at the queue's next timer beyond it (EventLoop::next_timer()) would commit the
  // loop's timer queue to that later instant, and a timer scheduled between the two afterwards
  // would come out late.
  void run_until(Time until) {
    settle();
    if (until < loop_.now()) return;
    bool reached = false;
    loop_.schedule_at(until, [flag = &reached] { *flag = true; });
    while (!reached && loop_.run_one()) settle();
  }

 private:
  // Every line the fake wrote to the watches of a (path, selector) reached the informers of
  // that key. One informer per key: a blocking wait. Several (replicas): the fake counts the
  // key's lines together and each informer's share is unknown, so the harness spins (yielding,
  // not sleeping) until the informers' sum reaches the total.
  void wait_for_informers() {
    std::map<std::tuple<std::string, std::string, std::string>, std::vector<const Informer*>>
        by_key;
    for (const WatchedInformer& i : informers_)
      by_key[{i.path, i.field_selector, i.label_selector}].push_back(i.informer);
    for (const auto& [key, informers] : by_key) {
      const int64_t total =
          fake_.watch_lines_written(std::get<0>(key), std::get<1>(key), std::get<2>(key));
      if (informers.size() == 1) {
        const_cast<Informer*>(informers.front())->wait_for_watch_lines(total);
        continue;
      }
      for (;;) {
        int64_t sum = 0;
        for (const Informer* i : informers) sum += i->stats().watch_lines;
        if (sum >= total) break;
        std::this_thread::yield();
      }
    }
  }

  EventLoop& loop_;
  FakeApiServer& fake_;
  std::vector<ApiWorkers*> workers_;
  std::vector<WatchedInformer> informers_;
};

}  // namespace gantry::kube::testing
