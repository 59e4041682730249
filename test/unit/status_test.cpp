// gdr::Status reads as absl's and RocksDB's do: s.ok() says whether it
// succeeded. Its factory of a good status was once named ok() too, so that
// `if (!s.ok())`, a check any user of those libraries writes, made a new good
// status and never saw an error (a caller of gdr::load_kernel then ran a
// null kernel). Compiling this file is half the test.
#include <gtest/gtest.h>

#include <type_traits>
#include <utility>

#include "gdr/status.h"

static_assert(std::is_same_v<decltype(std::declval<const gdr::Status&>().ok()), bool>,
              "s.ok() must test s, not make a new status");

TEST(Status, OkSaysWhetherItSucceeded) {
  const gdr::Status good = gdr::Status::success(), bad = gdr::Status::error("K: expected 128, got 64");
  EXPECT_TRUE(good.ok());
  EXPECT_TRUE(static_cast<bool>(good));
  EXPECT_EQ(good.message(), "");
  EXPECT_FALSE(bad.ok());
  EXPECT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(bad.message(), "K: expected 128, got 64");
}
