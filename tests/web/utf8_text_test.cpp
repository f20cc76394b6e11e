// Text that may not be UTF-8 on its way into JSON (issue 22): where it stops being UTF-8, the
// bytes escaped as "\xFF", and JSON that is always written.

#include "web/server/utf8_text.hpp"

#include <gtest/gtest.h>

namespace gantry::web {
namespace {

TEST(Utf8Text, FindsTheFirstByteThatIsNotUtf8) {
  EXPECT_EQ(first_invalid_utf8("plain ascii"), std::nullopt);
  EXPECT_EQ(first_invalid_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x9A\x80"), std::nullopt)
      << "é (2 bytes), € (3), 🚀 (4)";
  EXPECT_EQ(first_invalid_utf8("x\xFF\xFE"), 1u);
  EXPECT_EQ(first_invalid_utf8("ab\x80"), 2u) << "a continuation byte alone";
  EXPECT_EQ(first_invalid_utf8("\xC3"), 0u) << "cut short";
  EXPECT_EQ(first_invalid_utf8("\xC0\xAF"), 0u) << "overlong '/'";
  EXPECT_EQ(first_invalid_utf8("\xE0\x80\xAF"), 0u) << "overlong, 3 bytes";
  EXPECT_EQ(first_invalid_utf8("\xED\xA0\x80"), 0u) << "a surrogate, U+D800";
  EXPECT_EQ(first_invalid_utf8("\xF4\x90\x80\x80"), 0u) << "U+110000, past the last code point";
  EXPECT_EQ(first_invalid_utf8("\xF4\x8F\xBF\xBF"), std::nullopt) << "U+10FFFF, the last one";
}

TEST(Utf8Text, PositionsCountLinesAndCharacters) {
  // "a: é\nb: \xFF": line 2; before the bad byte "b: " is 3 characters, so column 4.
  const std::string text = "a: \xC3\xA9\nb: \xFF";
  ASSERT_EQ(first_invalid_utf8(text), 9u);
  const TextPosition p = position_of(text, 9);
  EXPECT_EQ(p.line, 2);
  EXPECT_EQ(p.column, 4);
  // On the first line, after "a: é" (4 characters, 5 bytes): column 5.
  EXPECT_EQ(position_of("a: \xC3\xA9\xFF", 5).column, 5);
}

TEST(Utf8Text, EscapesOnlyTheBadBytes) {
  EXPECT_EQ(escape_invalid_utf8("caf\xC3\xA9"), "caf\xC3\xA9");
  EXPECT_EQ(escape_invalid_utf8("/api/v1/x\xFF"), "/api/v1/x\\xFF");
  EXPECT_EQ(escape_invalid_utf8("\xFF\xFE\xC3\xA9\x80"), "\\xFF\\xFE\xC3\xA9\\x80");
}

TEST(Utf8Text, JsonTextNeverThrowsForBadBytes) {
  nlohmann::json j = {{"message", "no route /x\xFF"}, {"list", {"ok", "\xFE"}}};
  j["k\xFF"] = 1;
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error) << "what dump() alone does";
  const std::string text = json_text(j);
  const auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["message"], "no route /x\\xFF");
  EXPECT_EQ(back["list"][1], "\\xFE");
  EXPECT_EQ(back["k\\xFF"], 1);
  nlohmann::ordered_json o = {{"a", "valid"}};
  EXPECT_EQ(json_text(o), R"({"a":"valid"})");
}

}  // namespace
}  // namespace gantry::web
