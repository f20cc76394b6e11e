#include "tools/gantry/progress_bar.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "report/number_format.hpp"

namespace gantry::cli {

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)),
      active_(enabled && isatty(STDERR_FILENO) == 1),
      started_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(double fraction) {
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && fraction < 1.0 && now - last_draw_ < std::chrono::milliseconds(50)) return;
  last_draw_ = now;
  drawn_ = true;
  fraction = std::clamp(fraction, 0.0, 1.0);
  constexpr int kWidth = 40;
  const int filled = static_cast<int>(fraction * kWidth);
  const double elapsed = std::chrono::duration<double>(now - started_).count();
  std::string bar(static_cast<size_t>(filled), '#');
  bar.resize(kWidth, '.');
  // The time left, once a few percent say how fast it goes (assumes the rest goes as fast).
  std::string eta;
  if (fraction >= 0.02 && fraction < 1.0)
    eta = fmt::format(", ETA {}", seconds_human(std::round(elapsed * (1 - fraction) / fraction)));
  fmt::print(stderr, "\r{} [{}] {:5.1f}%  {:.1f}s{} ", label_, bar, fraction * 100, elapsed, eta);
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (!active_ || !drawn_) return;
  fmt::print(stderr, "\r{:{}}\r", "", label_.size() + 80);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace gantry::cli
