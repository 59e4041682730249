// Every validation rule rejects its bad input, names the argument, and
// leaves both outputs untouched, on every route.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <limits>

#include "gdr/baselines.h"
#include "implementations.h"
#include "gdr/runtime.h"
#include "gdr/reference/reference.h"

namespace gdr {
namespace {

struct Case {
  const char* name;
  std::function<void(Tensors&, test::Problem&)> corrupt;
  const char* must_mention;
};

const Case kCases[] = {
    {"B zero", [](Tensors& t, test::Problem&) { t.B = 0; }, "B must be positive"},
    {"H negative", [](Tensors& t, test::Problem&) { t.H = -2; }, "H must be positive"},
    {"T negative", [](Tensors& t, test::Problem&) { t.T = -1; }, "T must be non-negative"},
    {"K zero", [](Tensors& t, test::Problem&) { t.K = 0; }, "K must be positive"},
    {"V zero", [](Tensors& t, test::Problem&) { t.V = 0; }, "V must be positive"},
    {"overflow", [](Tensors& t, test::Problem&) { t.T = int64_t(1) << 40, t.K = int64_t(1) << 30; },
     "overflow"},
    {"null query", [](Tensors& t, test::Problem&) { t.query = nullptr; }, "query is a null pointer"},
    {"null key", [](Tensors& t, test::Problem&) { t.key = nullptr; }, "key is a null pointer"},
    {"null value", [](Tensors& t, test::Problem&) { t.value = nullptr; }, "value is a null pointer"},
    {"null decay", [](Tensors& t, test::Problem&) { t.decay = nullptr; }, "decay is a null pointer"},
    {"null beta", [](Tensors& t, test::Problem&) { t.beta = nullptr; }, "beta is a null pointer"},
    {"null initial_state", [](Tensors& t, test::Problem&) { t.initial_state = nullptr; },
     "initial_state is a null pointer"},
    {"misaligned key",
     [](Tensors& t, test::Problem&) {
       t.key = reinterpret_cast<const float*>(reinterpret_cast<const char*>(t.key) + 1);
     },
     "key is not aligned"},
    {"final_state is initial_state",
     [](Tensors& t, test::Problem& p) { t.initial_state = p.final_state.data(); },
     "final_state overlaps initial_state"},
    {"final_state partly overlaps initial_state",
     [](Tensors& t, test::Problem& p) {
       // initial_state ends one element inside final_state.
       p.final_state.resize(p.final_state.size() * 2);
       t.final_state = p.final_state.data() + p.initial_state.size() - 1;
       t.initial_state = p.final_state.data();
     },
     "final_state overlaps initial_state"},
    {"final_state overlaps value",
     [](Tensors& t, test::Problem& p) { t.value = p.final_state.data(); },
     "final_state overlaps value"},
    {"out overlaps query", [](Tensors& t, test::Problem& p) { t.query = p.out.data(); },
     "out overlaps query"},
    {"out overlaps beta", [](Tensors& t, test::Problem& p) { t.beta = p.out.data() + 3; },
     "out overlaps beta"},
    {"out overlaps final_state",
     [](Tensors& t, test::Problem& p) { t.out = p.final_state.data(); },
     "out overlaps final_state"},
};

class ValidateTest : public ::testing::TestWithParam<Route> {};

TEST_P(ValidateTest, RejectsAndWritesNothing) {
  tools::install_all_routes();
  for (const Case& c : kCases) {
    // V > K, so query (aliased onto out in one case) fits inside out.
    test::Problem p = test::make_problem(1, 2, 5, 6, 8);
    Tensors t = p.tensors();
    c.corrupt(t, p);
    // Mark what an output pointer now reaches, to see that nothing changed.
    const float mark = 12345.f;
    std::fill(p.out.begin(), p.out.end(), mark);
    std::fill(p.final_state.begin(), p.final_state.end(), mark);
    std::vector<float> out_before = p.out, state_before = p.final_state;
    Options options;
    options.route = GetParam();
    Status s = run(t, options);
    ASSERT_FALSE(s) << c.name;
    EXPECT_NE(s.message().find(c.must_mention), std::string::npos)
        << c.name << ": message was '" << s.message() << "'";
    EXPECT_EQ(0, std::memcmp(out_before.data(), p.out.data(), p.out.size() * sizeof(float)))
        << c.name;
    EXPECT_EQ(0, std::memcmp(state_before.data(), p.final_state.data(),
                             p.final_state.size() * sizeof(float)))
        << c.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Routes, ValidateTest,
                         ::testing::Values(Route::Reference, Route::BaselineTwoPass,
                                           Route::BaselineChunked
#ifdef GDR_HAVE_COMPILER
                                           ,
                                           Route::Auto, Route::Recurrent, Route::Chunked,
                                           Route::ChunkedAutoschedule
#endif
                                           ),
                         [](const auto& info) {
                           std::string n = route_name(info.param);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });

TEST(Validate, EmptySequenceAllowsNullSequenceTensors) {
  test::Problem p = test::make_problem(1, 1, 0, 4, 4);
  Tensors t = p.tensors();
  t.query = t.key = t.value = t.decay = t.beta = nullptr;
  t.out = nullptr;
  EXPECT_TRUE(validate(t)) << validate(t).message();
}

TEST(Validate, KernelBuiltForOtherSizesIsRefused) {
  test::Problem p = test::make_problem(1, 1, 2, 8, 8);
  Kernel k = reference_kernel();
  k.K = 16;
  Status s = execute(k, p.tensors(), {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("built for K=16"), std::string::npos) << s.message();
}

TEST(Validate, UnavailableRouteIsRefusedByName) {
  test::Problem p = test::make_problem(1, 1, 2, 8, 8);
  Options o;
  o.route = Route::Chunked;
  set_route_runner(Route::Chunked, nullptr);
  Status s = run(p.tensors(), o);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("'chunked'"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace gdr
