#include <gtest/gtest.h>

#include "gdr/runtime.h"

namespace gdr {
namespace {

TEST(Route, NamesRoundTrip) {
  for (Route r : {Route::Auto, Route::Recurrent, Route::Chunked,
                  Route::ChunkedAutoschedule, Route::Reference,
                  Route::BaselineTwoPass, Route::BaselineChunked}) {
    Route parsed;
    ASSERT_TRUE(parse_route(route_name(r), &parsed)) << route_name(r);
    EXPECT_EQ(parsed, r);
  }
  Route parsed;
  EXPECT_FALSE(parse_route("fast", &parsed));
}

}  // namespace
}  // namespace gdr
