// libFuzzer target for the pipeline loader (workflow/pipeline): arbitrary bytes in, and the
// only acceptable failure is gantry::PipelineErrors, which must list at least one error, each
// naming the file. The input also goes through the non-throwing validate_pipeline_sources,
// which must agree; every loaded pipeline must then build a PipelineDag (the loader promises
// known, unique task names and no cycles) and dump to DOT. Any other exception escapes and
// libFuzzer reports it as a crash; violations trap; sanitizers report memory errors and UB.
//
// Build and run (clang only), as tools/fuzz-smoke.sh does:
//   CXX=clang++ cmake -S . -B build-fuzz -DGANTRY_BUILD_FUZZ=ON -DGANTRY_BUILD_BENCH=OFF \
//     -DGANTRY_BUILD_TESTS=OFF
//   cmake --build build-fuzz --target pipeline_fuzz
//   build-fuzz/tests/fuzz/pipeline_fuzz -max_total_time=60 -dict=tests/fuzz/pipeline.dict \
//     tests/fuzz/corpus/pipeline

#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/core/errors.hpp"
#include "workflow/pipeline/dag.hpp"
#include "workflow/pipeline/pipeline_loader.hpp"

namespace {

void check_documents(const gantry::PipelineDocuments& docs) {
  for (const gantry::PipelineSpec& p : docs.pipelines) {
    const gantry::PipelineDag dag(p);  // throws std::invalid_argument (a crash) if broken
    if (dag.topological_order().size() != p.tasks.size()) __builtin_trap();
    if (dag.leaves().empty() && !p.tasks.empty()) __builtin_trap();
    if (gantry::to_dot(p).empty()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  bool threw = false;
  try {
    check_documents(gantry::load_pipeline_text(text, "fuzz.yaml"));
  } catch (const gantry::PipelineErrors& e) {
    threw = true;
    if (e.errors().empty()) __builtin_trap();
    for (const gantry::InputError& error : e.errors())
      if (std::string(error.what()).rfind("fuzz.yaml", 0) != 0) __builtin_trap();
  }
  gantry::PipelineDocuments docs;
  const auto errors = gantry::validate_pipeline_sources({{"fuzz.yaml", text}}, docs);
  if (errors.empty() == threw) __builtin_trap();
  check_documents(docs);  // what could be read is still valid
  return 0;
}
