// libFuzzer target for what adapters/kube parses from the API server: watch streams (line
// framing and events, split at an arbitrary point as chunks arrive) and Status bodies with a
// Retry-After header. Nothing may throw or crash; the documented contracts are checked below.
//
// Build and run (clang only), as tools/fuzz-smoke.sh does:
//   cmake --build build-fuzz --target kube_fuzz
//   build-fuzz/tests/fuzz/kube_fuzz -max_total_time=60 tests/fuzz/corpus/kube

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adapters/kube/kube_error.hpp"
#include "adapters/kube/watch_event.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The same bytes fed whole and in two chunks must give the same events.
  std::string whole;
  std::string split;
  const auto collect = [](std::string& out) {
    return [&out](std::string_view line) {
      if (line.find('\n') != std::string_view::npos) __builtin_trap();
      auto e = gantry::kube::parse_watch_event(line);
      if (e) {
        out += gantry::kube::to_string(e->type);
        out += e->resource_version;
        if ((e->type == gantry::kube::WatchEventType::kError) != e->status.has_value())
          __builtin_trap();
      }
      out += '|';
      return true;
    };
  };
  gantry::kube::LineSplitter a(1 << 16);
  a.feed(text, collect(whole));
  gantry::kube::LineSplitter b(1 << 16);
  const size_t cut = size > 0 ? data[0] % (size + 1) : 0;
  b.feed(text.substr(0, cut), collect(split));
  b.feed(text.substr(cut), collect(split));
  if (whole != split) __builtin_trap();

  const gantry::kube::KubeStatus s = gantry::kube::parse_status(429, text, text.substr(0, 12));
  if (s.code != 429 || s.reason.empty()) __builtin_trap();
  if (s.retry_after && s.retry_after->micros() < 0) __builtin_trap();
  if (!s.is_status_object && s.message.size() > 512) __builtin_trap();
  return 0;
}
