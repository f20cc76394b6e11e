#pragma once
// An ostream that calls a function with every complete line written to it. gantry serve hands
// one to the simulated world's action log (engine/policy/action_log.hpp): each action or
// observation is a line, and each line tells the server the cluster changed.

#include <functional>
#include <ostream>
#include <streambuf>
#include <string>

namespace gantry::web {

class LineStream final : private std::streambuf, public std::ostream {
  using Traits = std::streambuf::traits_type;

 public:
  explicit LineStream(std::function<void(std::string&&)> on_line)
      : std::ostream(this), on_line_(std::move(on_line)) {}

 private:
  int overflow(int c) override {
    if (c == Traits::eof()) return Traits::not_eof(c);
    if (c == '\n') {
      on_line_(std::move(line_));
      line_.clear();
    } else {
      line_ += static_cast<char>(c);
    }
    return c;
  }
  std::function<void(std::string&&)> on_line_;
  std::string line_;
};

}  // namespace gantry::web
