#pragma once
// How an HTTP thread asks the engine something (DESIGN.md rule 1): it posts a function to the
// event loop and waits for its result. Engine state is only ever touched on the loop thread.
//
// The wait is bounded: a loop that is stopping (or wedged) does not hold HTTP threads forever;
// the caller gets LoopUnavailable and answers 503. The posted function still runs if the loop
// gets to it later; it holds shared state, never references to the caller's stack.
//
// An exception thrown by the function on the loop thread is rethrown in the caller.

#include <chrono>
#include <future>
#include <memory>
#include <stdexcept>
#include <type_traits>

#include "engine/core/event_loop.hpp"

namespace gantry::web {

class LoopUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <typename F>
auto call_on_loop(EventLoop& loop, F fn,
                  std::chrono::milliseconds timeout = std::chrono::seconds(30))
    -> std::invoke_result_t<F&> {
  using R = std::invoke_result_t<F&>;
  auto task = std::make_shared<std::packaged_task<R()>>(std::move(fn));
  std::future<R> result = task->get_future();
  loop.post([task] { (*task)(); });
  if (result.wait_for(timeout) != std::future_status::ready)
    throw LoopUnavailable("the orchestrator did not answer within " +
                          std::to_string(timeout.count()) + " ms");
  return result.get();
}

}  // namespace gantry::web
