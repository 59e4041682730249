// One reusable tester: runs a route on a problem and checks it against the
// float64 reference with the contract's two bars (1e-4 relative, and at most
// 8x the error of the float32 recurrence on the same inputs).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <vector>

#include "gdr/runtime.h"
#include "gdr/reference/reference.h"
#include "guarded_copy.h"

namespace gdr::test {

// A copy of `x` `offset` floats past a cache line, where a view into a
// larger tensor may start. Not copyable: data points into storage.
struct ShiftedCopy {
  ShiftedCopy(const LineAlignedFloats& x, int64_t offset)
      : storage(x.size() + offset), data(storage.data() + offset), size(x.size()) {
    std::copy(x.begin(), x.end(), data);
  }
  ShiftedCopy(const ShiftedCopy&) = delete;
  ShiftedCopy& operator=(const ShiftedCopy&) = delete;
  std::vector<float> values() const { return {data, data + size}; }
  LineAlignedFloats storage;
  float* data;
  size_t size;
};

// Runs an implementation: gdr::run by default, or a given kernel.
using Runner = std::function<Status(const Tensors&, const Options&)>;
inline Runner route_runner() { return [](const Tensors& t, const Options& o) { return run(t, o); }; }

// Runs `runner` (default: options.route) on `p` (outputs written into p) and
// measures it.
inline Accuracy measure(Problem& p, const Options& options, const Runner& runner = route_runner()) {
  Accuracy a;
  Status s = measure_accuracy(p, [&](const Tensors& t) { return runner(t, options); }, &a);
  EXPECT_TRUE(s) << s.message();
  return a;
}

// Runs the call on copies of p's tensors, each a Copy(tensor, args...)
// whose `data` is where it is, and copies the outputs back into p.
template <typename Copy, typename... Args>
Runner on_copies(Problem& p, Args... args) {
  return [&p, args...](const Tensors& given, const Options& options) {
    std::deque<Copy> copies;  // each stays where it was made
    auto copied = [&](const LineAlignedFloats& x) { return copies.emplace_back(x, args...).data; };
    Tensors t = given;
    t.query = copied(p.query);
    t.key = copied(p.key);
    t.value = copied(p.value);
    t.decay = copied(p.decay);
    t.beta = copied(p.beta);
    float* out = copied(p.out);
    float* pool = copied(p.final_pool());
    t.out = out;
    t.final_state = pool;
    t.initial_state = p.form.in_place ? pool : copied(p.initial_state);
    const Status s = run(t, options);
    std::copy_n(out, p.out.size(), p.out.begin());
    LineAlignedFloats& final_pool = p.form.in_place ? p.initial_state : p.final_state;
    std::copy_n(pool, final_pool.size(), final_pool.begin());
    return s;
  };
}

// The contract's bars (reference.h), each with its own message.
inline void expect_within_contract(Problem& p, const Options& options,
                                   const std::string& what = "",
                                   const Runner& runner = route_runner()) {
  const Accuracy a = measure(p, options, runner);
  EXPECT_LE(a.error, kErrorBar) << route_name(options.route) << " " << describe(p) << " " << what;
  EXPECT_LE(a.error, kYardstickFactor * a.yardstick_error + kYardstickFloor)
      << route_name(options.route) << " " << describe(p) << " " << what
      << " yardstick error " << a.yardstick_error;
}

}  // namespace gdr::test

namespace gdr::test {

// Runs `p` as consecutive calls split at `cuts` (ascending token indices),
// feeding each final_state into the next call, and returns the max relative
// difference from the float64 reference of the whole sequence.
inline double split_sequence_error(const Problem& p, const std::vector<int64_t>& cuts,
                                   const Options& options, const Runner& runner = route_runner()) {
  const Reference ref = reference_f64(p);
  Problem whole = p;  // collects out and the final state of the last call
  LineAlignedFloats state = p.initial_state;
  std::vector<int64_t> bounds = {0};
  bounds.insert(bounds.end(), cuts.begin(), cuts.end());
  bounds.push_back(p.T);
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    const int64_t t0 = bounds[i], L = bounds[i + 1] - t0;
    Problem part = make_problem(p.B, p.H, L, p.K, p.V);
    for (int64_t bh = 0; bh < p.B * p.H; ++bh) {
      auto copy = [&](const LineAlignedFloats& from, LineAlignedFloats& to, int64_t width) {
        std::copy_n(from.begin() + (bh * p.T + t0) * width, L * width,
                    to.begin() + bh * L * width);
      };
      copy(p.query, part.query, p.K);
      copy(p.key, part.key, p.K);
      copy(p.decay, part.decay, p.K);
      copy(p.value, part.value, p.V);
      copy(p.beta, part.beta, 1);
    }
    part.initial_state = state;
    Status s = runner(part.tensors(), options);
    EXPECT_TRUE(s) << s.message();
    for (int64_t bh = 0; bh < p.B * p.H; ++bh)
      std::copy_n(part.out.begin() + bh * L * p.V, L * p.V,
                  whole.out.begin() + (bh * p.T + t0) * p.V);
    state = part.final_state;
  }
  whole.final_state = state;
  return relative_error(whole, ref);
}

}  // namespace gdr::test
