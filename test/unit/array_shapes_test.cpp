// Reading a call off its arrays' shapes (gdr/array_shapes.h): the cases the
// tools' and the Python package's tests cannot reach with real arrays.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "gdr/array_shapes.h"

namespace gdr {
namespace {

// B = 1, H = 2, T = 3, K = V = 4, head-major, channelwise decay.
ArrayShapes flagship() {
  ArrayShapes a;
  a.query = a.key = a.value = a.decay = {1, 2, 3, 4};
  a.beta = {1, 2, 3};
  return a;
}

Status shaped(const ArrayShapes& a) {
  ShapedCall call;
  return shape_call(a, [](const std::string& field) { return field; }, &call);
}

// An indexed pool's rows count: validate_sizes() sees them only once the
// indices have data, which a shaped call has not (found by
// test/fuzz/array_shapes_fuzz.cpp: such a pool was accepted).
TEST(ArrayShapes, AnIndexedPoolWhoseBytesOverflowIsRefused) {
  ArrayShapes a = flagship();
  a.initial_state_indices = Shape{1};
  // rows * 2 * 4 * 4 elements of 8 bytes (validate_sizes() counts 8, as
  // indices may be int64) fit in 64 bits below 2^55 rows.
  for (int64_t rows : {int64_t{1} << 55, INT64_MAX}) {
    a.initial_state = Shape{rows, 2, 4, 4};
    const Status s = shaped(a);
    ASSERT_FALSE(s) << rows;
    EXPECT_NE(s.message().find("sizes overflow"), std::string::npos) << s.message();
  }
  a.initial_state = Shape{(int64_t{1} << 55) - 1, 2, 4, 4};
  EXPECT_TRUE(shaped(a));
}

// Arrays of B, H heads (query and key too), T = 3, K and V in a layout.
ArrayShapes sized(int64_t B, int64_t H, int64_t K, int64_t V, Layout layout) {
  const Shape rows = layout == Layout::HeadMajor ? Shape{B, H, 3} : Shape{B, 3, H};
  auto with = [&](int64_t width) {
    Shape s = rows;
    s.push_back(width);
    return s;
  };
  ArrayShapes a;
  a.layout = layout;
  a.query = a.key = a.decay = with(K);
  a.value = with(V);
  a.beta = rows;
  return a;
}

// A zero size is named by the array it comes from, in either layout (before,
// a zero K or V read as a rank-3 row and the message blamed the key's
// shape, and a zero B or H named no array).
TEST(ArrayShapes, AZeroSizeIsNamedByItsArray) {
  for (const Layout layout : {Layout::HeadMajor, Layout::TokenMajor}) {
    for (const auto& [a, message] : {std::pair{sized(0, 2, 4, 4, layout), "query: B must be positive"},
                                     {sized(1, 2, 0, 4, layout), "query: K must be positive"},
                                     {sized(1, 0, 4, 4, layout), "value: H (its heads) must be positive"},
                                     {sized(1, 2, 4, 0, layout), "value: V must be positive"}}) {
      const Status s = shaped(a);
      ASSERT_FALSE(s) << message;
      EXPECT_EQ(s.message().rfind(message, 0), 0u) << s.message();
    }
    EXPECT_TRUE(shaped(sized(1, 2, 4, 4, layout)));
  }
}

// A key of another rank says the rank it needs, as query and value do
// (before: "does not match the expected (2, 0, 5, 8)", a shape of 0 heads).
TEST(ArrayShapes, AKeyOfAnotherRankIsNamedWithTheRank) {
  for (const Layout layout : {Layout::HeadMajor, Layout::TokenMajor}) {
    for (const Shape& key : {Shape{1, 3, 4}, Shape{4}, Shape{1, 2, 3, 4, 1}}) {
      ArrayShapes a = sized(1, 2, 4, 4, layout);
      a.key = key;
      const Status s = shaped(a);
      ASSERT_FALSE(s);
      const std::string order = layout == Layout::HeadMajor ? "heads, T" : "T, heads";
      EXPECT_EQ(s.message().rfind("key: expected rank 4 [B, " + order + ", K]", 0), 0u) << s.message();
    }
  }
}

}  // namespace
}  // namespace gdr
