// libFuzzer target for the Prometheus text parser (adapters/kube/serving/prometheus_text.hpp):
// what Gantry reads from serving pods' /metrics. It must return or throw InputError naming the
// source and a line inside the text (and a column inside that line); nothing else may escape.
// What it returns must read back: every sample's name non-empty, its line inside the text, its
// family known; and the counters taken from it (serving_metric_names.hpp) finite or skipped.
// Violations trap.
//
//   build-fuzz/tests/fuzz/prometheus_text_fuzz -max_total_time=60 \
//     -dict=tests/fuzz/prometheus_text.dict tests/fuzz/corpus/prometheus_text

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "adapters/kube/serving/prometheus_text.hpp"
#include "adapters/kube/serving/serving_metric_names.hpp"
#include "engine/core/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const int lines = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 1;
  try {
    const gantry::kube::PromExposition e = gantry::kube::parse_prometheus_text(text, "fuzz");
    for (const gantry::kube::PromSample& s : e.samples) {
      if (s.name.empty() || s.line < 1 || s.line > lines) __builtin_trap();
      if (e.family(s.family) == nullptr) __builtin_trap();
    }
    gantry::kube::serving_counters(e, {});
  } catch (const gantry::InputError& err) {
    if (err.where().file != "fuzz") __builtin_trap();
    if (err.where().line < 1 || err.where().line > lines) __builtin_trap();
    if (err.where().column < 1 || static_cast<size_t>(err.where().column) > size + 1)
      __builtin_trap();
  }
  return 0;
}
