// libFuzzer target for the loader of `gantry simulate` files, Scenarios and Experiments alike
// (sim/simulation_file.hpp), and for kind: InferenceService files (sim/serving/service_file.hpp),
// which share the service reader with a Scenario's spec.workload.services: arbitrary bytes in, and
// the only acceptable failure is gantry::InputError (InputErrors when a file has several). Every
// error must name the file, and a list of errors must stay within the bound (kMaxReportedErrors and
// the note that checking stopped). Any other exception escapes and libFuzzer reports it as a crash
// (an uncaught exception aborts); sanitizers report memory errors and UB.
//
// Build and run (clang only):
//   CXX=clang++ cmake -S . -B build-fuzz -DGANTRY_BUILD_FUZZ=ON -DGANTRY_BUILD_BENCH=OFF \
//     -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined"
//   cmake --build build-fuzz --target scenario_fuzz
//   build-fuzz/.../scenario_fuzz -max_total_time=60 tests/fuzz/corpus/scenario

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/config/config_errors.hpp"
#include "engine/core/errors.hpp"
#include "sim/serving/service_file.hpp"
#include "sim/simulation_file.hpp"

namespace {

bool names_the_file(const gantry::InputError& e) {
  return std::string(e.what()).rfind("fuzz.yaml", 0) == 0;
}

template <typename F>
void expect_only_input_errors(F&& load) {
  try {
    load();
  } catch (const gantry::InputErrors& e) {
    if (e.errors().size() > gantry::kMaxReportedErrors + 1) __builtin_trap();
    for (const gantry::InputError& error : e.errors())
      if (!names_the_file(error)) __builtin_trap();
  } catch (const gantry::InputError& e) {
    // Expected for almost every input (a syntax error is one InputError).
    if (!names_the_file(e)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  expect_only_input_errors([&] { gantry::load_simulation_text(text, "fuzz.yaml", {}); });
  expect_only_input_errors([&] { gantry::load_service_text(text, "fuzz.yaml"); });
  return 0;
}
