#pragma once
// A trivially copyable callback for the event loop's queue.
//
// Why not std::function: the loop's radix queue moves each pending entry several times before it
// runs, and at 10^5..10^6 pending timers those moves dominate the cost of an event. A callable
// that is trivially copyable and at most 16 bytes (a lambda capturing `this` and an id, say) is
// stored inline and moved as plain bytes; anything else is moved to the heap once and the
// callback holds the pointer. Ownership is therefore explicit: the holder calls release()
// exactly once, whether or not the callback ran (the event loop does this).

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace gantry {

class InlineCallback {
 public:
  InlineCallback() = default;

  template <typename F>
  static InlineCallback make(F&& f) {
    using D = std::decay_t<F>;
    InlineCallback cb;
    if constexpr (sizeof(D) <= kInline && alignof(D) <= alignof(std::max_align_t) &&
                  std::is_trivially_copyable_v<D> && std::is_trivially_destructible_v<D>) {
      ::new (static_cast<void*>(cb.storage_)) D(std::forward<F>(f));
      cb.invoke_ = [](void* p) { (*std::launder(static_cast<D*>(p)))(); };
    } else {
      D* heap = new D(std::forward<F>(f));
      std::memcpy(cb.storage_, &heap, sizeof heap);
      cb.invoke_ = [](void* p) { (**static_cast<D**>(p))(); };
      cb.release_ = [](void* p) { delete *static_cast<D**>(p); };
    }
    return cb;
  }

  explicit operator bool() const { return invoke_ != nullptr; }
  void operator()() { invoke_(storage_); }
  // Frees a heap-held callable; a no-op for inline ones. Call once per made callback.
  void release() {
    if (release_ != nullptr) release_(storage_);
    release_ = nullptr;
  }

 private:
  static constexpr size_t kInline = 16;
  alignas(std::max_align_t) unsigned char storage_[kInline] = {};
  void (*invoke_)(void*) = nullptr;
  void (*release_)(void*) = nullptr;
};

static_assert(std::is_trivially_copyable_v<InlineCallback>);

}  // namespace gantry
