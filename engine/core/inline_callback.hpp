#pragma once
// A trivially copyable, 24-byte callback for the event loop's timer table.
//
// Why not std::function (32 bytes, not trivially copyable, may allocate): the loop keeps one
// callback per pending timer in a table it indexes at random, and at 10^5..10^6 pending timers
// every byte of an entry is cache traffic. A callable that is trivially copyable, at most 16
// bytes and 8-byte aligned (a lambda capturing `this` and an id, say) is stored inline and
// copied as plain bytes; anything else is moved to the heap once and the callback holds the
// pointer. Invoking and releasing go through one pointer to a per-type table, so a callback is
// the 16 bytes of storage plus 8. Ownership is explicit: the holder calls release() exactly
// once, whether or not the callback ran (the event loop does this).

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
    if constexpr (sizeof(D) <= kInline && alignof(D) <= kAlign && std::is_trivially_copyable_v<D> &&
                  std::is_trivially_destructible_v<D>) {
      ::new (static_cast<void*>(cb.storage_)) D(std::forward<F>(f));
      cb.ops_ = &kInlineOps<D>;
    } else {
      D* heap = new D(std::forward<F>(f));
      std::memcpy(cb.storage_, &heap, sizeof heap);
      cb.ops_ = &kHeapOps<D>;
    }
    return cb;
  }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->invoke(storage_); }
  // Frees a heap-held callable; a no-op for inline ones. Call once per made callback.
  void release() {
    if (ops_ != nullptr && ops_->release != nullptr) ops_->release(storage_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    void (*invoke)(void*);
    void (*release)(void*);  // null: nothing to free
  };
  template <typename D>
  static constexpr Ops kInlineOps{[](void* p) { (*std::launder(static_cast<D*>(p)))(); }, nullptr};
  template <typename D>
  static constexpr Ops kHeapOps{[](void* p) { (**static_cast<D**>(p))(); },
                                [](void* p) { delete *static_cast<D**>(p); }};

  static constexpr size_t kInline = 16;
  static constexpr size_t kAlign = alignof(void*);
  alignas(kAlign) unsigned char storage_[kInline] = {};
  const Ops* ops_ = nullptr;
};

static_assert(std::is_trivially_copyable_v<InlineCallback>);
static_assert(sizeof(InlineCallback) == 24);

}  // namespace gantry
