#include "engine/config/config_errors.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/config/config_fields.hpp"

namespace gantry {
namespace config_errors_test {

InputError at(const std::string& file, int line, int column, const std::string& message) {
  return InputError(SourceLocation{file, line, column}, "f", message);
}

std::vector<std::string> messages(const std::vector<InputError>& errors) {
  std::vector<std::string> out;
  for (const InputError& e : errors) out.push_back(e.what());
  return out;
}

TEST(ConfigErrors, ListedInFileOrderThenLineAndColumn) {
  ConfigErrors errors;
  errors.add(at("a.yaml", 5, 1, "third"));
  errors.add(at("b.yaml", 1, 1, "fifth"));  // b.yaml comes after every file named in the order
  errors.add(at("a.yaml", 2, 9, "second"));
  errors.add(at("a.yaml", 2, 3, "first"));
  errors.add(at("a.yaml", 5, 1, "fourth"));  // same position: kept in the order found
  EXPECT_EQ(messages(errors.take({"a.yaml"})),
            (std::vector<std::string>{"a.yaml:2:3: f: first", "a.yaml:2:9: f: second",
                                      "a.yaml:5:1: f: third", "a.yaml:5:1: f: fourth",
                                      "b.yaml:1:1: f: fifth"}));
  EXPECT_TRUE(errors.empty()) << "take() empties the collector";
}

TEST(ConfigErrors, FilesGivenInOrderComeFirstEvenWhenFoundLater) {
  ConfigErrors errors;
  errors.add(at("trace.csv", 3, 1, "bad row"));
  errors.add(at("s.yaml", 9, 1, "bad field"));
  EXPECT_EQ(messages(errors.take({"s.yaml"})),
            (std::vector<std::string>{"s.yaml:9:1: f: bad field", "trace.csv:3:1: f: bad row"}));
}

TEST(ConfigErrors, AttemptRecordsAnInputErrorAndGoesOn) {
  ConfigErrors errors;
  int ran = 0;
  EXPECT_FALSE(errors.attempt([&] {
    ++ran;
    throw at("a.yaml", 1, 1, "no");
  }));
  EXPECT_TRUE(errors.attempt([&] { ++ran; }));
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(errors.size(), 1u);
}

// At the limit readers are no longer run, and the list ends with a note saying so.
TEST(ConfigErrors, StopsAtTheLimitAndSaysSo) {
  ConfigErrors errors(2);
  int ran = 0;
  for (int line = 1; line <= 5; ++line)
    errors.attempt([&] {
      ++ran;
      throw at("a.yaml", line, 1, "bad");
    });
  EXPECT_EQ(ran, 2) << "readers after the limit are skipped";
  EXPECT_TRUE(errors.full());
  // The three readers not run count as problems: a reader that compares counts before and
  // after a block must not take skipped values for good ones.
  EXPECT_EQ(errors.size(), 5u);
  EXPECT_EQ(messages(errors.take()),
            (std::vector<std::string>{"a.yaml:1:1: f: bad", "a.yaml:2:1: f: bad",
                                      "a.yaml: stopped after 2 errors; the rest was not checked"}));
}

TEST(ConfigErrors, ThrowsOneInputErrorListingEveryError) {
  ConfigErrors errors;
  EXPECT_NO_THROW(errors.throw_if_any());
  errors.add(at("a.yaml", 7, 2, "later"));
  errors.add(at("a.yaml", 3, 4, "earlier"));
  try {
    errors.throw_if_any();
    FAIL() << "no exception";
  } catch (const InputErrors& e) {
    EXPECT_STREQ(e.what(), "a.yaml:3:4: f: earlier\na.yaml:7:2: f: later");
    // As an InputError, it is the first error.
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.detail(), "earlier");
    EXPECT_EQ(e.errors().size(), 2u);
  }
}

ConfigNode doc(const std::string& text) { return parse_yaml_document(text, "t.yaml"); }

TEST(ConfigFields, EveryUnknownFieldAndEveryMissingOneIsRecorded) {
  ConfigErrors errors;
  const ConfigFields f(doc("a: 1\nx: 2\ny: 3\n"), {"a", "b"}, errors);
  EXPECT_TRUE(f.valid());
  EXPECT_TRUE(f.has("a"));
  EXPECT_FALSE(f.required("b").has_value());
  EXPECT_EQ(messages(errors.take()),
            (std::vector<std::string>{"t.yaml:1:1: b: missing required field 'b'",
                                      "t.yaml:2:1: x: unknown field 'x'; expected one of: a, b",
                                      "t.yaml:3:1: y: unknown field 'y'; expected one of: a, b"}));
}

TEST(ConfigFields, ReadRecordsEachFieldsErrorAndReadsTheRest) {
  ConfigErrors errors;
  const ConfigFields f(doc("a: one\nb: 2\nc: three\n"), {"a", "b", "c"}, errors);
  int64_t a = 0, b = 0, c = 0;
  EXPECT_FALSE(f.read("a", [&](const ConfigNode& n) { a = n.as_int(0, 9); }));
  EXPECT_TRUE(f.read("b", [&](const ConfigNode& n) { b = n.as_int(0, 9); }));
  EXPECT_FALSE(f.read_required("c", [&](const ConfigNode& n) { c = n.as_int(0, 9); }));
  EXPECT_EQ(b, 2);
  EXPECT_EQ(
      messages(errors.take()),
      (std::vector<std::string>{"t.yaml:1:4: a: expected an integer from 0 to 9, got 'one'",
                                "t.yaml:3:4: c: expected an integer from 0 to 9, got 'three'"}));
}

// Not a map: one error, and no field of it is reported missing on top.
TEST(ConfigFields, NotAMapIsOneError) {
  ConfigErrors errors;
  const ConfigFields f(doc("[1, 2]\n"), {"a"}, errors);
  EXPECT_FALSE(f.valid());
  EXPECT_FALSE(f.required("a").has_value());
  EXPECT_EQ(messages(errors.take()),
            (std::vector<std::string>{"t.yaml:1:1: expected a map with fields a, got a list"}));
}

TEST(ConfigFields, ARetiredFieldSaysWhereItWent) {
  ConfigErrors errors;
  const ConfigFields f(doc("old: 1\n"), {"new"}, errors, {{"old", "now spelt new"}});
  EXPECT_TRUE(f.retired("old").has_value());
  EXPECT_FALSE(f.retired("new").has_value());
  EXPECT_EQ(messages(errors.take()), (std::vector<std::string>{"t.yaml:1:1: old: now spelt new"}));
}

TEST(ConfigFields, AskingForAFieldNotAllowedIsAProgrammingError) {
  ConfigErrors errors;
  const ConfigFields f(doc("a: 1\n"), {"a"}, errors);
  EXPECT_THROW(f.optional("b"), std::logic_error);
}

}  // namespace config_errors_test
}  // namespace gantry
