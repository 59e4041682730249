#include "gdr/schedules/schedule.h"

#include <algorithm>
#include <cstdio>
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

bool parse_schedule(const std::string& text, Schedule* schedule, std::string* error) {
  Schedule s;
  int used = 0;
  if (std::sscanf(text.c_str(), "c%d-w%d%n", &s.chunk, &s.vector_width, &used) != 2 ||
      used != static_cast<int>(text.size())) {
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

Schedule default_schedule() {
  // Measured 2026-11-29 on the Xeon (Ice Lake, AVX-512, FMA peak 196
  // GFLOP/s per core), gdr-bench B=1 H=32 T=2048 K=V=128, 1 thread, median:
  //   c16-w16 89.3 ms (49% of peak), c32-w16 103.0 ms, c64-w16 124.5 ms;
  //   baseline-chunked 532.9 ms. Narrower vectors are slower at every C.
  return Schedule{16, 16};
}

}  // namespace gdr::schedules
