// How far a decode step's memory pattern alone stays from the state copy
// (T = 0) on an AVX2 machine, without gdr's code: every state column needs
// its sums over all K rows before its update, so a step walks the state in
// column tiles whose sums fit 16 registers (8 vectors: 16 sums of a key and
// a query). Cases, each against a plain streamed copy of the same states in
// row order, alternated in one process in a shuffled order (medians):
//   copy in tiles   the copy in gdr's tile order (64 columns, all K rows)
//   one read        each tile read once, summed and updated from one load
//   two reads       gdr's scheme: a tile summed from memory while the tile
//                   before is updated from cache and streamed out (64 or 32
//                   columns)
//   row blocks      two reads, all tiles of 16 rows before the next 16 rows
//                   (rows whole in memory order; sums kept in L1 between)
// Every case prefetches what it reads from memory 32 rows ahead into L2,
// past a tile's last rows the next tile's first, as gdr's kernel does. Build
// and run (its results:
// docs/recurrent-route.md, "On AVX2 decode is furthest from its floor"):
//   g++ -O2 -mavx2 -mfma -fopenmp tools/scripts/decode_pattern.cpp -o decode_pattern
//   ./decode_pattern K HEADS THREADS ROUNDS     (K = V; e.g. 128 512 1 30)
#include <immintrin.h>

#ifndef _OPENMP
#error "build with -fopenmp: THREADS would run one after another"
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace {

constexpr int kMostVectors = 64;  // a row of the copy at K = 512
enum class Walk { CopyRows, CopyTiles, OneRead, TwoReads, RowBlocks };

struct Shape {
  int K, heads;
};

// One pass over `heads` states (K x K, rows K apart) from `in` to `out`;
// returns a sum of the sums so that the compiler keeps them.
float step(const Shape& s, const float* in, float* out, Walk walk, int width) {
  const int K = s.K, V = s.K, n = width / 8;
  const __m256 decay = _mm256_set1_ps(0.99f), key = _mm256_set1_ps(0.5f), query = _mm256_set1_ps(0.25f);
  const __m256 delta = _mm256_set1_ps(0.1f);
  __m256 total = _mm256_setzero_ps();
  float held[2 * 512];  // row blocks: every tile's sums (V <= 512)
  const int tiles = walk == Walk::CopyRows ? 1 : V / width;
  // Row `row` of tile `unit` (head unit / tiles, tile unit % tiles), past
  // the last head from the first again.
  auto row_of = [&](long unit, int row) {
    const long u = unit % (long(s.heads) * tiles);
    return in + size_t(u / tiles) * K * V + size_t(row) * V + (u % tiles) * width;
  };
  for (int h = 0; h < s.heads; ++h) {
    const float* state = in + size_t(h) * K * V;
    float* next_state = out + size_t(h) * K * V;
    std::fill(held, held + 2 * V, 0.0f);
    const int rows = walk == Walk::RowBlocks ? 16 : K;
    for (int r0 = 0; r0 < K; r0 += rows) {
      for (int t = 0; t < tiles; ++t) {
        const int col = t * width;
        // The tile a case reads from memory: two reads sum the tile after
        // this one (the next head's first after the last), row blocks the
        // same tile of the next head, the others this tile.
        const long summed = walk == Walk::TwoReads    ? long(h) * tiles + t + 1
                            : walk == Walk::RowBlocks ? long(h + 1) * tiles + t
                                                      : long(h) * tiles + t;
        // Row blocks read the next head's tile 16 rows at a time: its rows
        // 32 ahead, past its last those of the head after.
        const float* summed_rows = row_of(summed, 0);
        const float* after_rows = row_of(summed + (walk == Walk::RowBlocks ? tiles : 1), 0);
        __m256 sums[2][kMostVectors];
        for (int j = 0; j < n; ++j) {
          sums[0][j] = walk == Walk::RowBlocks ? _mm256_loadu_ps(&held[2 * (col + 8 * j)]) : _mm256_setzero_ps();
          sums[1][j] = walk == Walk::RowBlocks ? _mm256_loadu_ps(&held[2 * (col + 8 * j) + 8]) : _mm256_setzero_ps();
        }
        for (int k = r0; k < r0 + rows; ++k) {
          const float* row = state + size_t(k) * V + col;
          const float* ahead = summed_rows + size_t(k) * V;
          // 32 rows ahead of what it reads from memory, past its last row
          // the first rows of the tile it reads next, as gdr's kernel.
          const float* prefetched = k + 32 < K ? ahead + 32 * V : after_rows + size_t(k + 32 - K) * V;
          for (int l = 0; l < width; l += 16) _mm_prefetch(reinterpret_cast<const char*>(prefetched + l), _MM_HINT_T1);
          for (int j = 0; j < n; ++j) {
            __m256 x = _mm256_load_ps(row + 8 * j);
            if (walk != Walk::CopyRows && walk != Walk::CopyTiles) {
              x = _mm256_fmadd_ps(key, delta, _mm256_mul_ps(x, decay));
              const __m256 y = walk == Walk::OneRead ? x : _mm256_load_ps(ahead + 8 * j);
              sums[0][j] = _mm256_fmadd_ps(y, key, sums[0][j]);
              sums[1][j] = _mm256_fmadd_ps(y, query, sums[1][j]);
            }
            _mm256_stream_ps(next_state + size_t(k) * V + col + 8 * j, x);
          }
        }
        for (int j = 0; j < n && walk != Walk::CopyRows && walk != Walk::CopyTiles; ++j) {
          if (walk == Walk::RowBlocks) {
            _mm256_storeu_ps(&held[2 * (col + 8 * j)], sums[0][j]);
            _mm256_storeu_ps(&held[2 * (col + 8 * j) + 8], sums[1][j]);
          }
          total = _mm256_add_ps(total, _mm256_add_ps(sums[0][j], sums[1][j]));
        }
      }
    }
  }
  _mm_sfence();
  float lanes[8];
  _mm256_storeu_ps(lanes, total);
  return lanes[0];
}

}  // namespace

int main(int argc, char** argv) {
  const int K = argc > 1 ? std::atoi(argv[1]) : 128, heads = argc > 2 ? std::atoi(argv[2]) : 512;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 1, rounds = argc > 4 ? std::atoi(argv[4]) : 30;
  if (threads < 1 || threads > 64 || K < 64 || K > 512 || K % 64 != 0 || heads < 2 * threads ||
      heads % threads != 0 || rounds < 1) {
    std::fprintf(stderr,
                 "usage: decode_pattern K(a multiple of 64, at most 512) HEADS(a multiple of THREADS) THREADS "
                 "ROUNDS\n");
    return 2;
  }
  const size_t floats = size_t(heads) * K * K;
  float* in = static_cast<float*>(std::aligned_alloc(64, floats * sizeof(float)));
  float* out = static_cast<float*>(std::aligned_alloc(64, floats * sizeof(float)));
  if (!in || !out) {
    std::fprintf(stderr, "decode_pattern: cannot allocate %zu MiB twice\n", floats * sizeof(float) >> 20);
    return 1;
  }
  for (size_t i = 0; i < floats; ++i) in[i] = out[i] = 0.001f * float(i % 1000);
  struct Case {
    const char* name;
    Walk walk;
    int width;
  };
  const Case cases[] = {{"copy in rows (T = 0)", Walk::CopyRows, K},  {"copy in tiles", Walk::CopyTiles, 64},
                        {"one read", Walk::OneRead, 64},             {"two reads", Walk::TwoReads, 64},
                        {"two reads, 32 columns", Walk::TwoReads, 32}, {"row blocks", Walk::RowBlocks, 64}};
  const int count = sizeof cases / sizeof cases[0];
  std::vector<std::vector<double>> ms(count);
  float sink = 0;
  const Shape part{K, heads / threads};
  // Each round in a new order (fixed seed): what ran before a case decides
  // what it finds in cache, and a fixed order favours some cases.
  std::vector<int> order(count);
  for (int c = 0; c < count; ++c) order[c] = c;
  std::minstd_rand rng(1);
  for (int r = 0; r < rounds; ++r) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int c : order) {
      const auto start = std::chrono::steady_clock::now();
      float sums[64] = {};
#pragma omp parallel for num_threads(threads)
      for (int p = 0; p < threads; ++p)
        sums[p] = step(part, in + p * (floats / threads), out + p * (floats / threads), cases[c].walk, cases[c].width);
      for (int p = 0; p < threads; ++p) sink += sums[p];
      ms[c].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
  }
  for (auto& m : ms) std::sort(m.begin(), m.end());
  std::printf("K = V = %d, %d heads (%.0f MiB of state), %d thread(s), medians of %d rounds:\n", K, heads,
              floats * sizeof(float) / 1048576.0, threads, rounds);
  for (int c = 0; c < count; ++c)
    std::printf("  %-24s %8.3f ms  %.2fx the copy\n", cases[c].name, ms[c][rounds / 2],
                ms[c][rounds / 2] / ms[0][rounds / 2]);
  return sink == 12345.0f;  // keeps the sums
}
