// libFuzzer target for the Scenario loader: arbitrary bytes in, and the only acceptable
// failure is gantry::InputError. Any other exception escapes and libFuzzer reports it as a
// crash (an uncaught exception aborts); sanitizers report memory errors and UB.
//
// Build and run (clang only):
//   CXX=clang++ cmake -S . -B build-fuzz -DGANTRY_BUILD_FUZZ=ON -DGANTRY_BUILD_BENCH=OFF \
//     -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined"
//   cmake --build build-fuzz --target scenario_fuzz
//   build-fuzz/.../scenario_fuzz -max_total_time=60 tests/fuzz/corpus/scenario

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/errors.hpp"
#include "sim/scenario_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    gantry::load_scenario_text(text, "fuzz.yaml");
  } catch (const gantry::InputError& e) {
    // Expected for almost every input. The message must name the file.
    if (std::string(e.what()).rfind("fuzz.yaml", 0) != 0) __builtin_trap();
  }
  return 0;
}
