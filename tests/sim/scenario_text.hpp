#pragma once
// Helpers for tests that load scenario text and edit one spot of it.

#include <gtest/gtest.h>

#include <string>

#include "engine/core/errors.hpp"
#include "sim/scenario_loader.hpp"

namespace gantry::testing {

// `text` with the first occurrence of `from` replaced by `to` (a test failure if absent).
inline std::string replace_first(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The message of the InputError loading `text` as `file` must throw ("" and a test failure if
// none).
inline std::string load_error(const std::string& text, const std::string& file) {
  try {
    load_scenario_text(text, file);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError for:\n" << text;
  return "";
}

}  // namespace gantry::testing
