#pragma once
// Text from the network that may not be UTF-8, on its way into JSON.
//
// nlohmann's dump() throws (type_error 316) on a string that is not valid UTF-8, so one byte
// such as %ff in a path that an error message echoes would end `gantry serve` (issue 22). Every
// JSON the server writes (answers and event-stream data) goes through json_text(), which never
// throws for that reason: bytes that are not UTF-8 are written as the four characters "\xFF",
// so the client sees what it sent. Request bodies (YAML, JSON) are checked up front instead:
// first_invalid_utf8() gives the position for a 400 naming the line and column.
//
// UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates (U+D800..U+DFFF), nothing
// above U+10FFFF.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace gantry::web {

// The offset of the first byte of `text` that does not begin a valid UTF-8 sequence, or nullopt
// when all of it is valid.
std::optional<size_t> first_invalid_utf8(std::string_view text);

// Where that byte is: 1-based line, and 1-based column counted in characters (so the column an
// editor shows for the valid text before it).
struct TextPosition {
  int line = 1;
  int column = 1;
};
TextPosition position_of(std::string_view text, size_t offset);

// `text` with each byte that is not part of valid UTF-8 written as "\xFF" (two upper-case hex
// digits); valid text is returned unchanged.
std::string escape_invalid_utf8(std::string_view text);

// A copy of `j` whose strings and keys went through escape_invalid_utf8().
template <class Json>
Json escape_invalid_utf8_in(const Json& j) {
  if (j.is_string()) return Json(escape_invalid_utf8(j.template get_ref<const std::string&>()));
  if (j.is_array()) {
    Json out = Json::array();
    for (const Json& item : j) out.push_back(escape_invalid_utf8_in(item));
    return out;
  }
  if (j.is_object()) {
    Json out = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      out[escape_invalid_utf8(it.key())] = escape_invalid_utf8_in(it.value());
    return out;
  }
  return j;
}

// Compact JSON text of `j`; strings that are not valid UTF-8 are escaped as above rather than
// making dump() throw. The common case (all valid) costs one dump().
template <class Json>
std::string json_text(const Json& j) {
  try {
    return j.dump();
  } catch (const typename Json::type_error&) {
    return escape_invalid_utf8_in(j).dump();
  }
}

}  // namespace gantry::web
