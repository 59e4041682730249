#include "gdr/schedules/schedule.h"

#include <algorithm>
#include <charconv>
#include <iterator>

namespace gdr::schedules {

std::string Schedule::check() const {
  if (std::find(std::begin(kChunkSizes), std::end(kChunkSizes), chunk) == std::end(kChunkSizes))
    return "chunk must be 16, 32, 64 or 128, got " + std::to_string(chunk);
  if (std::find(std::begin(kVectorWidths), std::end(kVectorWidths), vector_width) ==
      std::end(kVectorWidths))
    return "vector width must be 4, 8 or 16, got " + std::to_string(vector_width);
  return "";
}

std::string Schedule::str() const {
  return "c" + std::to_string(chunk) + "-w" + std::to_string(vector_width);
}

namespace {

// The whole of [begin, end) as an int of its range (sscanf's %d is
// undefined past it).
bool whole_int(const char* begin, const char* end, int* out) {
  const auto [stop, error] = std::from_chars(begin, end, *out);
  return error == std::errc() && stop == end;
}

}  // namespace

bool parse_schedule(const std::string& text, Schedule* schedule, std::string* error) {
  Schedule s;
  const size_t dash = text.find("-w");
  // Only the canonical text (str() gives it back): not "c016-w08".
  if (text.rfind('c', 0) != 0 || dash == std::string::npos ||
      !whole_int(text.data() + 1, text.data() + dash, &s.chunk) ||
      !whole_int(text.data() + dash + 2, text.data() + text.size(), &s.vector_width) || s.str() != text) {
    *error = "schedule '" + text + "' is not of the form c<chunk>-w<vector width>, e.g. c64-w16";
    return false;
  }
  if (std::string why = s.check(); !why.empty()) {
    *error = "schedule '" + text + "': " + why;
    return false;
  }
  *schedule = s;
  return true;
}

Schedule default_schedule(int vector_floats) {
  // Chunks of 16 tokens, vectors as wide as the target's registers.
  // Measured 2026-11-29 on the Ice Lake Xeon VM (AVX-512, FMA peak 193-196
  // GFLOP/s per core), gdr-bench B=1 H=32 T=2048 K=V=128, 1 thread, medians:
  //   c16-w16 87.7 ms (51% of peak, 6.0x baseline-chunked's 525.5 ms),
  //   c32-w16 94-96 ms, c64-w16 122-124 ms, c128-w16 191 ms; w8 and w4 are
  //   1.5x and 2.5x slower at every chunk size (docs/chunked-prefill.md).
  // On AVX2 (AMD Zen 3, 2026-12-06, gdr-bench --impl
  // chunked@c16-w16,chunked@c16-w8,chunked@c16-w4 --T 512 --threads 1,2
  // --interleave-cases 1, H = 32, K = V = 256 at H = 16), w16 / w8 / w4 ms
  // on 1 thread: K = V = 64 23.9 / 17.1 / 27.4, 128 68.7 / 45.9 / 87.4,
  // 256 117 / 84 / 155; 2 threads 12.2 / 9.9 / 15.9, 35.3 / 26.2 / 44.4,
  // 58.8 / 42.6 / 79.4. c32-w8 and c64-w8 took 1.25x and 1.6x c16-w8's
  // time at K = V = 128.
  int width = kVectorWidths[0];
  for (int w : kVectorWidths)
    if (w <= vector_floats) width = w;
  return Schedule{16, width};
}

}  // namespace gdr::schedules
