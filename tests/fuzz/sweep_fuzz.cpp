// libFuzzer target for the capacity planner's files: kind: Sweep (sim/sweep/sweep_loader.hpp)
// and kind: Plan (sim/plan/plan_loader.hpp), and the field paths of their axes
// (sim/sweep/document_path.hpp). Arbitrary bytes in; the loaders may only throw
// gantry::InputError naming the file, the paths only std::invalid_argument. Anything else escapes
// and libFuzzer reports it as a crash; sanitizers report memory errors and UB. The loaders do not
// read the base file (only check that it exists), so no input reaches the file system beyond that.
//
// The path part: the input's first line is a path, the rest a YAML document it is expanded
// against and set in.

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/config/config_errors.hpp"
#include "engine/core/errors.hpp"
#include "sim/plan/plan_loader.hpp"
#include "sim/sweep/document_path.hpp"
#include "sim/sweep/sweep_loader.hpp"

namespace {

template <typename F>
void expect_only_input_errors(F&& load) {
  try {
    load();
  } catch (const gantry::InputErrors& e) {
    if (e.errors().size() > gantry::kMaxReportedErrors + 1) __builtin_trap();
    for (const gantry::InputError& error : e.errors())
      if (std::string(error.what()).rfind("fuzz.yaml", 0) != 0) __builtin_trap();
  } catch (const gantry::InputError& e) {
    if (std::string(e.what()).rfind("fuzz.yaml", 0) != 0) __builtin_trap();
  }
}

void paths(const std::string& text) {
  const size_t newline = text.find('\n');
  const auto steps = gantry::parse_path(text.substr(0, newline));
  if (!steps || newline == std::string::npos) return;
  YAML::Node doc;
  try {
    doc = YAML::Load(text.substr(newline + 1));
  } catch (const YAML::Exception&) {
    return;  // not the part under test
  }
  try {
    for (const auto& concrete : gantry::expand_path(doc, *steps)) {
      gantry::set_at_path(doc, concrete, YAML::Node("x"));
      if (!gantry::value_at_path(doc, concrete).IsDefined()) __builtin_trap();
    }
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  expect_only_input_errors([&] { gantry::load_sweep_text(text, "fuzz.yaml"); });
  expect_only_input_errors([&] { gantry::load_plan_text(text, "fuzz.yaml"); });
  paths(text);
  return 0;
}
