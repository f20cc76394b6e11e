#pragma once
// Integer division rounded towards minus infinity (C++'s / rounds towards zero), for instants
// before 1970 and zone offsets west of UTC.

#include <cstdint>

namespace gantry {

inline int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

inline int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }

}  // namespace gantry
