// libFuzzer target for what Gantry reads from Kubernetes objects (adapters/kube/model): the
// input is JSON (from the corpus of real node and pod objects and their mutations); the first
// byte picks the reader: quantity text, Node or Pod. A reader must return or throw InputError
// naming a non-empty object label; nothing else may escape (no nlohmann type_error, no
// out-of-range), and a read node or pod must be self-consistent (a share of a GPU between 1 and
// 999 milli and no whole GPU with it; island size dividing the GPU count). Violations trap.
//
//   build-fuzz/tests/fuzz/kube_objects_fuzz -max_total_time=60 -dict=tests/fuzz/kube_objects.dict \
//     tests/fuzz/corpus/kube_objects

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "adapters/kube/model/kube_node.hpp"
#include "adapters/kube/model/kube_pod.hpp"
#include "adapters/kube/model/quantity.hpp"
#include "engine/core/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  const int reader = data[0] % 3;
  if (reader == 0) {
    const std::optional<int64_t> v = gantry::kube::parse_quantity(text, 1000);
    if (v && *v < 0) __builtin_trap();
    return 0;
  }
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return 0;
  try {
    if (reader == 1) {
      const gantry::kube::KubeNode n = gantry::kube::parse_node(j);
      if (n.allocatable.gpus < 0 || n.allocatable.cpu_milli < 0) __builtin_trap();
      if (n.allocatable.gpus > 0 && (n.island_size < 1 || n.allocatable.gpus % n.island_size))
        __builtin_trap();
    } else {
      const gantry::kube::KubePod p = gantry::kube::parse_pod(j);
      if (p.request.gpu_milli < 0 || p.request.gpu_milli >= 1000) __builtin_trap();
      if (p.request.gpu_milli > 0 && p.request.gpus > 0) __builtin_trap();
      if (p.name.empty() || p.namespace_name.empty()) __builtin_trap();
    }
  } catch (const gantry::InputError& e) {
    if (e.where().file.empty()) __builtin_trap();
  }
  return 0;
}
