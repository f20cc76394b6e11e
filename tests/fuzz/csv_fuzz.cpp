// libFuzzer target for the trace importers (adapters/traces): arbitrary bytes go to the openb
// node and pod loaders, the PAI machine loader, the spot-GPU node loader and the Azure LLM
// request trace reader. The only
// acceptable failure is gantry::InputError whose message starts with the file name; anything
// else escapes and libFuzzer reports it (an uncaught exception aborts), and sanitizers report
// memory errors and UB. What loads must satisfy the documented contracts (checked below).
//
// Build and run (clang only):
//   CXX=clang++ cmake -S . -B build-fuzz-traces -DGANTRY_BUILD_FUZZ=ON -DGANTRY_BUILD_BENCH=OFF \
//     -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined"
//   cmake --build build-fuzz-traces --target csv_fuzz
//   build-fuzz-traces/.../csv_fuzz -max_total_time=60 tests/fuzz/corpus/csv

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "adapters/traces/azure_llm_trace.hpp"
#include "adapters/traces/openb.hpp"
#include "adapters/traces/pai_machines.hpp"
#include "adapters/traces/spot_nodes.hpp"
#include "engine/core/errors.hpp"

namespace {

void check_topology(const gantry::Topology& t) {
  for (const gantry::NodeInfo& n : t.nodes) {
    if (n.node_class < 0 || static_cast<size_t>(n.node_class) >= t.classes.size()) __builtin_trap();
    if (n.rack != 0 || n.name.empty()) __builtin_trap();
  }
  for (const gantry::NodeClass& c : t.classes) {
    const bool has_gpus = c.capacity.gpus > 0;
    if (has_gpus != (c.gpu_type >= 0)) __builtin_trap();
    if (has_gpus && (c.island_size != c.capacity.gpus || c.capacity.gpus > 64)) __builtin_trap();
    if (c.gpu_type >= 0 && static_cast<size_t>(c.gpu_type) >= t.gpus.size()) __builtin_trap();
    if (c.capacity.cpu_milli < 0 || c.capacity.memory_bytes < 0) __builtin_trap();
  }
}

void check_pods(const std::vector<gantry::TracePod>& pods) {
  for (const gantry::TracePod& p : pods) {
    if (p.name.empty() || p.num_gpu < 0 || p.gpu_milli < 0 || p.gpu_milli > 1000) __builtin_trap();
    if ((p.num_gpu == 0) != (p.gpu_milli == 0)) __builtin_trap();
    if (p.num_gpu > 1 && p.gpu_milli != 1000) __builtin_trap();
    for (const std::string& m : p.gpu_models)
      if (m.empty() || m.find('|') != std::string::npos) __builtin_trap();
  }
}

void check_requests(const std::vector<gantry::TraceRequest>& requests) {
  int64_t previous = 0;
  for (const gantry::TraceRequest& r : requests) {
    if (r.offset_us < previous || r.prefill_tokens < 0 || r.decode_tokens < 0) __builtin_trap();
    if (r.prefill_tokens > gantry::kMaxTraceTokens || r.decode_tokens > gantry::kMaxTraceTokens)
      __builtin_trap();
    previous = r.offset_us;
  }
}

template <typename F>
void expect_only_input_errors(const char* file_name, F&& load) {
  try {
    load();
  } catch (const gantry::InputError& e) {
    if (std::string_view(e.what()).rfind(file_name, 0) != 0) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  expect_only_input_errors("pods.csv",
                           [&] { check_pods(gantry::load_openb_pods_text(text, "pods.csv")); });
  expect_only_input_errors(
      "nodes.csv", [&] { check_topology(gantry::load_openb_nodes_text(text, "nodes.csv")); });
  expect_only_input_errors(
      "pai.csv", [&] { check_topology(gantry::load_pai_machines_text(text, "pai.csv")); });
  expect_only_input_errors("spot.csv",
                           [&] { check_topology(gantry::load_spot_nodes_text(text, "spot.csv")); });
  expect_only_input_errors(
      "llm.csv", [&] { check_requests(gantry::load_azure_llm_trace_text(text, "llm.csv")); });
  return 0;
}
