// Messages echo what they were given; one_line keeps them one line of a
// terminal (gdr/support/one_line.h).
#include "gdr/support/one_line.h"

#include <gtest/gtest.h>

#include <string>

namespace gdr::support {
namespace {

TEST(OneLine, EscapesControlCharactersAndKeepsTheRest) {
  EXPECT_EQ(one_line("--K: got '1\n2'"), "--K: got '1\\n2'");
  EXPECT_EQ(one_line("a\rb\tc"), "a\\rb\\tc");
  EXPECT_EQ(one_line("red \x1b[31mtext"), "red \\x1b[31mtext");
  EXPECT_EQ(one_line(std::string("nul \0 del \x7f", 11)), "nul \\x00 del \\x7f");
  const std::string kept = "/tmp/caf\xc3\xa9 dir/k.npy: it's \"fine\" \\ ~";  // UTF-8, quotes, backslash
  EXPECT_EQ(one_line(kept), kept);
  EXPECT_EQ(one_line(""), "");
}

}  // namespace
}  // namespace gdr::support
