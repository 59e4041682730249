// The knobs of the chunked prefill schedule, as a checked value type.
// Text form: "c64-w16" (chunk 64 tokens, vector width 16 floats).
#pragma once

#include <string>

namespace gdr::schedules {

struct Schedule {
  int chunk = 64;         // tokens per chunk C: 16, 32, 64 or 128
  int vector_width = 16;  // floats per vector: 4, 8 or 16

  // Empty if every knob is in range, else a sentence naming the bad knob.
  std::string check() const;
  std::string str() const;
  bool operator==(const Schedule& o) const {
    return chunk == o.chunk && vector_width == o.vector_width;
  }
  bool operator<(const Schedule& o) const {
    return chunk != o.chunk ? chunk < o.chunk : vector_width < o.vector_width;
  }
};

// Parses str()'s form; on failure returns false and says why in *error.
bool parse_schedule(const std::string& text, Schedule* schedule, std::string* error);

// The hand schedule used when the caller names none, for a target whose
// vectors hold `vector_floats` floats (16 with AVX-512, 8 with AVX2, 4 with
// SSE or NEON); see schedule.cpp for the measurements behind it.
Schedule default_schedule(int vector_floats);

// Every value of the knobs, for tests and tuning.
const int kChunkSizes[] = {16, 32, 64, 128};
const int kVectorWidths[] = {4, 8, 16};

}  // namespace gdr::schedules
