#pragma once
// A one-line progress bar on stderr (percent, elapsed time, and once 2 % is done the time left),
// drawn only when stderr is a terminal, so piped or redirected output stays clean.

#include <chrono>
#include <cstdio>
#include <string>

namespace gantry::cli {

class ProgressBar {
 public:
  // `label` is printed before the bar. Disabled when stderr is not a terminal or `enabled` is
  // false.
  explicit ProgressBar(std::string label, bool enabled = true);
  ~ProgressBar();

  // fraction in [0, 1]; redraws at most every 50 ms.
  void update(double fraction);
  // Clears the line.
  void finish();
  bool active() const { return active_; }

 private:
  std::string label_;
  bool active_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace gantry::cli
