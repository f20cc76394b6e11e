#include "adapters/kube/model/quantity.hpp"

#include <cctype>
#include <string>

namespace gantry::kube {

namespace {

// Holds up to 30 digits times a scale and a binary suffix; GCC and clang both have it.
__extension__ typedef __int128 Wide;

constexpr Wide kLimit = static_cast<Wide>(INT64_MAX);

// value = mantissa × 10^exp10 × 2^exp2 × scale (plus a non-zero tail of digits beyond the
// mantissa's precision when `tail`), rounded up to an integer. Inputs whose intermediate value
// leaves the int64 range × 10 before the divisions are refused as too large.
std::optional<int64_t> evaluate(Wide mantissa, int exp10, int exp2, int64_t scale, bool tail) {
  Wide v = mantissa * scale;
  if (mantissa != 0 && v / scale != mantissa) return std::nullopt;
  for (; exp2 > 0; --exp2) {
    v *= 2;
    if (v > kLimit * 10) return std::nullopt;
  }
  for (; exp10 > 0; --exp10) {
    v *= 10;
    if (v > kLimit * 10) return std::nullopt;
  }
  Wide divisor = 1;
  for (; exp10 < 0; ++exp10) {
    divisor *= 10;
    if (divisor > kLimit * 10) return v == 0 && !tail ? int64_t{0} : int64_t{1};
  }
  const Wide q = v / divisor + (v % divisor != 0 || tail ? 1 : 0);  // round up
  if (q > kLimit) return std::nullopt;
  return static_cast<int64_t>(q);
}

}  // namespace

std::optional<int64_t> parse_quantity(std::string_view text, int64_t scale) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    if (text[i] == '-') {
      // Only a negative zero is not negative; requests and capacities are never below zero.
      bool all_zero = true;
      for (char c : text.substr(1))
        if (std::isdigit(static_cast<unsigned char>(c)) && c != '0') all_zero = false;
      if (!all_zero) return std::nullopt;
    }
    ++i;
  }
  Wide mantissa = 0;
  int exp10 = 0;
  int digits = 0;
  int significant = 0;
  bool tail = false;  // a non-zero digit beyond the 30 significant ones kept
  const auto take_digit = [&](char c, bool fraction) {
    ++digits;
    // Beyond 30 significant digits the rest can change an int64 result only by rounding up:
    // keep the fact that something non-zero followed.
    if (mantissa == 0 && c == '0') {
      if (fraction) --exp10;
      return;
    }
    if (significant < 30) {
      mantissa = mantissa * 10 + (c - '0');
      ++significant;
      if (fraction) --exp10;
    } else {
      if (!fraction) ++exp10;
      if (c != '0') tail = true;
    }
  };
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
    take_digit(text[i++], false);
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
      take_digit(text[i++], true);
  }
  if (digits == 0) return std::nullopt;
  const std::string_view suffix = text.substr(i);
  int exp2 = 0;
  if (suffix.empty()) {
  } else if (suffix.size() == 2 && suffix[1] == 'i') {
    constexpr std::string_view kBinary = "KMGTPE";
    const size_t k = kBinary.find(suffix[0]);
    if (k == std::string_view::npos) return std::nullopt;
    exp2 = 10 * static_cast<int>(k + 1);
  } else if (suffix[0] == 'e' || suffix[0] == 'E') {
    size_t j = 1;
    bool negative = false;
    if (j < suffix.size() && (suffix[j] == '+' || suffix[j] == '-')) negative = suffix[j++] == '-';
    if (j == suffix.size()) return std::nullopt;
    int e = 0;
    for (; j < suffix.size(); ++j) {
      if (!std::isdigit(static_cast<unsigned char>(suffix[j]))) return std::nullopt;
      e = e * 10 + (suffix[j] - '0');
      if (e > 100) return std::nullopt;
    }
    exp10 += negative ? -e : e;
  } else if (suffix.size() == 1) {
    switch (suffix[0]) {
      case 'n':
        exp10 -= 9;
        break;
      case 'u':
        exp10 -= 6;
        break;
      case 'm':
        exp10 -= 3;
        break;
      case 'k':
        exp10 += 3;
        break;
      case 'M':
        exp10 += 6;
        break;
      case 'G':
        exp10 += 9;
        break;
      case 'T':
        exp10 += 12;
        break;
      case 'P':
        exp10 += 15;
        break;
      case 'E':
        exp10 += 18;
        break;
      default:
        return std::nullopt;
    }
  } else {
    return std::nullopt;
  }
  return evaluate(mantissa, exp10, exp2, scale, tail);
}

std::string format_cpu_quantity(int64_t milli) {
  return milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
}

}  // namespace gantry::kube
