#pragma once
// Test helper: the message of the InputError a call throws, or a marker if it throws none.

#include <string>

#include "engine/core/errors.hpp"

namespace gantry::trace_test {

template <typename F>
std::string input_error_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no InputError>";
}

}  // namespace gantry::trace_test
