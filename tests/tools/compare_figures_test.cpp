// `gantry compare`'s units (tools/gantry/compare_figures.hpp): values and signed differences
// read as the text report writes them, worked out by hand.

#include "tools/gantry/compare_figures.hpp"

#include <gtest/gtest.h>

namespace gantry::compare_figures_test {

using cli::FigureUnit;
using cli::format_difference;
using cli::format_figure;

TEST(CompareFigures, ValuesInTheReportsUnits) {
  EXPECT_EQ(format_figure(FigureUnit::kSeconds, 754.2), "12m34s");
  EXPECT_EQ(format_figure(FigureUnit::kShare, 0.7834), "78.3 %");
  EXPECT_EQ(format_figure(FigureUnit::kCount, 1234567), "1,234,567");
  EXPECT_EQ(format_figure(FigureUnit::kGpuHours, 12.54), "12.5 GPU-h");
  EXPECT_EQ(format_figure(FigureUnit::kMoney, 1234.567), "1,234.57");
  EXPECT_EQ(format_figure(FigureUnit::kPlain, 0.456), "0.46");
}

// B − A with its sign; shares in percentage points (0.783 − 0.762 = 2.1 pp); a difference
// that rounds to zero in its unit is shown as that zero, without a sign.
TEST(CompareFigures, DifferencesAreSignedInTheSameUnit) {
  EXPECT_EQ(format_difference(FigureUnit::kSeconds, 62), "+1m02s");
  EXPECT_EQ(format_difference(FigureUnit::kSeconds, -30), "−30.0s");
  EXPECT_EQ(format_difference(FigureUnit::kShare, 0.783 - 0.762), "+2.1 pp");
  EXPECT_EQ(format_difference(FigureUnit::kShare, -0.0004), "0.0 pp");
  EXPECT_EQ(format_difference(FigureUnit::kCount, -1500), "−1,500");
  EXPECT_EQ(format_difference(FigureUnit::kCount, 0.2), "0");
  EXPECT_EQ(format_difference(FigureUnit::kGpuHours, 3.25), "+3.2 GPU-h");
  EXPECT_EQ(format_difference(FigureUnit::kMoney, -0.004), "0.00");
}

}  // namespace gantry::compare_figures_test
