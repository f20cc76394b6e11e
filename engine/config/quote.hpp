#pragma once
// How a user's text is shown inside an error message: in single quotes, control characters
// escaped (a block scalar's newlines would break the one-line message) and long text cut,
// so an error about a 1 MB scalar stays readable.

#include <cstdio>
#include <string>
#include <string_view>

namespace gantry {

inline std::string quote_for_message(std::string_view text) {
  constexpr size_t kMaxShown = 60;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMaxShown) out += "...";
  return out + "'";
}

}  // namespace gantry
