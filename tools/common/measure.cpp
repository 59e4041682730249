#include "measure.h"

#include <algorithm>
#include <chrono>
#include <numeric>
#include <random>

namespace gdr::tools {

std::vector<std::vector<double>> time_interleaved(size_t n, const std::function<double(size_t)>& run,
                                                  const TimingBudget& budget,
                                                  const std::function<bool()>& stop) {
  using Clock = std::chrono::steady_clock;
  std::vector<std::vector<double>> times(n);
  for (size_t i = 0; i < n; ++i) run(i);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::minstd_rand rng(1);
  size_t last = n - 1;
  const auto start = Clock::now();
  for (int rep = 0; rep < budget.max_reps; ++rep) {
    if (stop && stop()) break;
    // Each repetition in a new order (a fixed seed: runs repeat), never
    // starting with the implementation that ended the last one, so that
    // each one follows each other equally often on average: what ran before
    // a call (the chunked route's working set, say) decides whether it finds
    // its state in cache. In a fixed order the first implementation always
    // followed the last (decode, H = 32, 2 threads: auto 10-20% slower than
    // recurrent, which ran the same kernel, in 5 of 5 runs).
    std::shuffle(order.begin(), order.end(), rng);
    if (n > 1 && rep > 0 && order.front() == last) std::swap(order.front(), order.back());
    for (size_t i : order) times[i].push_back(run(i));
    last = order.back();
    const double spent = std::chrono::duration<double>(Clock::now() - start).count();
    if (rep + 1 >= budget.min_reps && spent > budget.seconds) break;
  }
  return times;
}

double median(std::vector<double> x) {
  if (x.empty()) return 0;
  std::sort(x.begin(), x.end());
  const size_t n = x.size();
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

Spread spread(std::vector<double> x) {
  Spread s;
  if (x.empty()) return s;
  std::sort(x.begin(), x.end());
  auto quantile = [&](double q) {
    const double at = q * double(x.size() - 1);
    const size_t lo = static_cast<size_t>(at);
    const size_t hi = std::min(lo + 1, x.size() - 1);
    return x[lo] + (at - double(lo)) * (x[hi] - x[lo]);
  };
  s.min = x.front();
  s.q1 = quantile(0.25);
  s.median = median(x);
  s.q3 = quantile(0.75);
  s.max = x.back();
  return s;
}

double op_flops(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V, int64_t readouts) {
  return (8.0 + 2.0 * (readouts - 1)) * K * V * T * B * H;
}

}  // namespace gdr::tools
