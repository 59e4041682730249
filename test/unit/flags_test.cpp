#include "flags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gdr::tools {
namespace {

Status parse(std::vector<const char*> args, Flags* flags) {
  args.insert(args.begin(), "tool");
  return Flags::parse(static_cast<int>(args.size()), const_cast<char**>(args.data()),
                      {"--a", "--n", "--list"}, flags);
}

TEST(Flags, ParsesKnownFlags) {
  Flags f;
  ASSERT_TRUE(parse({"--a", "x", "--n", "42", "--list", "1,2,3"}, &f));
  EXPECT_EQ(f.get("--a"), "x");
  EXPECT_EQ(f.get("--missing", "fallback"), "fallback");
  int64_t n = 0;
  ASSERT_TRUE(f.integer("--n", 1, 100, &n));
  EXPECT_EQ(n, 42);
  std::vector<int64_t> list;
  ASSERT_TRUE(f.integers("--list", 0, 9, &list));
  EXPECT_EQ(list, (std::vector<int64_t>{1, 2, 3}));
}

TEST(Flags, RejectsWithTheFlagsName) {
  struct Case {
    std::vector<const char*> args;
    const char* must_mention;
  };
  for (const Case& c : std::vector<Case>{{{"--b", "1"}, "unknown argument --b"},
                                         {{"--a", "1", "--a", "2"}, "--a given twice"},
                                         {{"--a"}, "--a needs a value"},
                                         {{"--a", ""}, "--a: needs a value, got ''"},
                                         {{"--a", "--n", "2"}, "--a: needs a value, got the flag --n"},
                                         {{"--a", "--help"}, "--a: needs a value, got the flag --help"}}) {
    Flags f;
    Status s = parse(c.args, &f);
    ASSERT_FALSE(s) << c.must_mention;
    EXPECT_NE(s.message().find(c.must_mention), std::string::npos) << s.message();
  }
}

TEST(Flags, RangeChecksIntegers) {
  // Digits only: " 2" and "+2" ran as 2 (strtoll skips space, takes '+').
  for (const char* bad : {"0", "101", "x", "9999999999999999999999", " 2", "+2", "2 ", "-", "0x2"}) {
    Flags f;
    ASSERT_TRUE(parse({"--n", bad}, &f));
    int64_t n = 7;
    Status s = f.integer("--n", 1, 100, &n);
    EXPECT_FALSE(s) << bad;
    EXPECT_NE(s.message().find("--n"), std::string::npos);
    EXPECT_EQ(n, 7) << "left alone on error";
  }
  int64_t negative = 0;
  EXPECT_TRUE(parse_integer("-5", &negative));
  EXPECT_EQ(negative, -5);
  // An empty item is refused, not dropped (--T 1,,2 ran T = 1 and 2).
  for (const char* bad : {"1,x", "1,,2", "1,", ",1", "1, 2"}) {
    Flags f;
    ASSERT_TRUE(parse({"--list", bad}, &f));
    std::vector<int64_t> list;
    EXPECT_FALSE(f.integers("--list", 0, 9, &list)) << bad;
    EXPECT_TRUE(list.empty());
  }
}

// Durations: finite decimal numbers in (0, max] only; "inf" ran forever.
TEST(Flags, DurationsAreFinitePositiveNumbers) {
  for (const char* good : {"0.5", "2", "1e-3", "86400"}) {
    Flags f;
    ASSERT_TRUE(parse({"--n", good}, &f));
    double v = 0;
    ASSERT_TRUE(f.positive_number("--n", kMaxDurationSeconds, &v)) << good;
    EXPECT_EQ(v, std::stod(good));
  }
  for (const char* bad : {"inf", "INF", "nan", "-1", "0", "1e400", "0x10", "1s", "86401"}) {
    Flags f;
    ASSERT_TRUE(parse({"--n", bad}, &f));
    double v = 7;
    const Status s = f.positive_number("--n", kMaxDurationSeconds, &v);
    ASSERT_FALSE(s) << bad;
    EXPECT_EQ(s.message(), std::string("--n: expected a number > 0 and <= 86400, got '") + bad + "'");
    EXPECT_EQ(v, 7);
  }
}

TEST(Flags, HelpStopsParsing) {
  Flags f;
  ASSERT_TRUE(parse({"--help", "--unknown"}, &f));
  EXPECT_TRUE(f.help());
}

}  // namespace
}  // namespace gdr::tools
