#include "peak.h"

#include "gdr/thread_pool.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#else
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

namespace gdr::bench {
namespace {

using Clock = std::chrono::steady_clock;

#if defined(__aarch64__)
using Vec = float32x4_t;  // NEON (a cross build for a board)
constexpr int kBits = 128;
inline Vec fma(Vec a, Vec b, Vec c) { return vfmaq_f32(c, a, b); }
inline Vec add(Vec a, Vec b) { return vaddq_f32(a, b); }
inline Vec splat(float x) { return vdupq_n_f32(x); }
#elif defined(__AVX512F__)
using Vec = __m512;
constexpr int kBits = 512;
inline Vec fma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
inline Vec splat(float x) { return _mm512_set1_ps(x); }
#else
using Vec = __m256;
constexpr int kBits = 256;
inline Vec fma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
inline Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
inline Vec splat(float x) { return _mm256_set1_ps(x); }
#endif
constexpr int kLanes = kBits / 32;

// 12 independent chains cover the FMA latency on two ports.
constexpr int kChains = 12;

float fma_loop(int64_t iterations) {
  Vec acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = splat(1.f + 1e-3f * i);
  const Vec m = splat(0.999999f), a = splat(1e-7f);
  for (int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < kChains; ++i) acc[i] = fma(acc[i], m, a);
  Vec total = acc[0];
  for (int i = 1; i < kChains; ++i) total = add(total, acc[i]);
  float out[kLanes];
  std::memcpy(out, &total, sizeof(out));
  return out[0];
}

// Best of several runs of `threads` threads each doing the loop: the
// machine's FMA GFLOP/s.
double fma_gflops(int threads) {
  constexpr int64_t kIterations = 20'000'000;
  double best = 0;
  volatile float sink = 0;
  for (int run = 0; run < 5; ++run) {
    std::vector<std::thread> pool;
    std::vector<float> results(threads);
    auto start = Clock::now();
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { results[t] = fma_loop(kIterations); });
    for (auto& th : pool) th.join();
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    for (float r : results) sink = sink + r;
    best = std::max(best, 2.0 * kLanes * kChains * kIterations * threads / seconds / 1e9);
  }
  return best;
}

double copy_gbps() {
  const size_t n = size_t(64) << 20 >> 2;  // 64 MiB of floats
  std::vector<float> a(n, 1.f), b(n, 0.f);
  double best = 0;
  for (int run = 0; run < 5; ++run) {
    auto start = Clock::now();
    std::memcpy(b.data(), a.data(), n * sizeof(float));
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    best = std::max(best, 2.0 * n * sizeof(float) / seconds / 1e9);
    a[run] = b[n - 1 - run];
  }
  return best;
}

}  // namespace

double fma_sample_ns(int threads, double* flops) {
  constexpr int64_t kIterations = 400'000;
  // Several tasks per thread, as a kernel call has (heads): with one task
  // each, a helper that starts late costs the sample all of its delay,
  // where in a kernel call the caller takes over tasks the helper has not
  // started.
  constexpr int64_t kTasksPerThread = 8;
  static volatile float sink = 0;
  std::vector<float> results(threads * kTasksPerThread);
  auto start = Clock::now();
  // On the kernels' own pool: a thread started per sample came up late
  // (2 threads: 124-148 GFLOP/s against kernels doing 163-175 in the same
  // cases, 107-115% of that "peak").
  ThreadPool::shared().parallel_for(threads * kTasksPerThread, threads, 0, [&](int64_t t, int, float*) {
    results[t] = fma_loop(kIterations / kTasksPerThread);
  });
  const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  for (float r : results) sink = sink + r;
  *flops = 2.0 * kLanes * kChains * kIterations * threads;
  return ns;
}

std::string shared_cores_warning(const MachinePeak& peak, int usable_cpus) {
  if (usable_cpus < 2 || peak.fma_gflops_1t <= 0 || peak.fma_gflops_2t >= 1.5 * peak.fma_gflops_1t) return "";
  char line[256];
  std::snprintf(line, sizeof line,
                "warning: 2 threads ran the FMA loop at %.2fx 1 thread's speed (another program on the cores, "
                "or hyperthreads of one core): times on 2 or more threads do not show 2 cores",
                peak.fma_gflops_2t / peak.fma_gflops_1t);
  return line;
}

MachinePeak measure_peak() {
  MachinePeak p;
  p.vector_bits = kBits;
  p.fma_gflops_1t = fma_gflops(1);
  p.fma_gflops_2t = fma_gflops(2);
  p.copy_gbps_1t = copy_gbps();
  return p;
}

}  // namespace gdr::bench
