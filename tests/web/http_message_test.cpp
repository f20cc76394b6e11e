// Percent-decoding, query strings and the error body shape.

#include "web/server/http_message.hpp"

#include <gtest/gtest.h>

namespace gantry::web {
namespace {

TEST(PercentDecode, DecodesAndRefusesMalformedEscapes) {
  EXPECT_EQ(percent_decode("a%20b%2Fc"), "a b/c");
  EXPECT_EQ(percent_decode("2026-10-01T03%3A00%3A00Z"), "2026-10-01T03:00:00Z");
  EXPECT_EQ(percent_decode("a+b"), "a+b") << "'+' is only a space in query strings";
  EXPECT_EQ(percent_decode("%2525"), "%25") << "decoded once";
  EXPECT_EQ(percent_decode("%4"), std::nullopt);
  EXPECT_EQ(percent_decode("%"), std::nullopt);
  EXPECT_EQ(percent_decode("%zz"), std::nullopt);
  EXPECT_EQ(percent_decode("a%00b"), std::nullopt) << "no NUL";
}

TEST(ParseQuery, PairsPlusAsSpaceLastValueWins) {
  const auto q = parse_query("state=failed&limit=50&q=a+b%21&flag&limit=10&&");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->at("state"), "failed");
  EXPECT_EQ(q->at("limit"), "10");
  EXPECT_EQ(q->at("q"), "a b!");
  EXPECT_EQ(q->at("flag"), "");
  EXPECT_EQ(q->size(), 4u);
  EXPECT_EQ(parse_query("a=%zz"), std::nullopt);
}

TEST(HttpResponse, ErrorBodyShape) {
  const HttpResponse r = HttpResponse::error(404, "not_found", "no pipeline 'x'");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(r.body, R"({"error":{"code":"not_found","message":"no pipeline 'x'"}})"
                    "\n");
}

}  // namespace
}  // namespace gantry::web
