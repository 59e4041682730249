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

}  // namespace
}  // namespace gdr
