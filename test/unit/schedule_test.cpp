#include <gtest/gtest.h>

#include "gdr/schedules/chunked_schedule.h"
#include "gdr/schedules/schedule.h"

namespace gdr::schedules {
namespace {

TEST(Schedule, TextRoundTripsForEveryKnobValue) {
  for (int c : kChunkSizes)
    for (int w : kVectorWidths) {
      const Schedule s{c, w};
      EXPECT_EQ(s.check(), "");
      Schedule parsed;
      std::string error;
      ASSERT_TRUE(parse_schedule(s.str(), &parsed, &error)) << error;
      EXPECT_EQ(parsed, s);
    }
  EXPECT_EQ((Schedule{64, 16}.str()), "c64-w16");
}

TEST(Schedule, RejectsOutOfRangeKnobsAndBadText) {
  struct Bad {
    const char* text;
    const char* must_mention;
  } cases[] = {{"c48-w16", "chunk must be 16, 32, 64 or 128, got 48"},
               {"c64-w32", "vector width must be 4, 8 or 16, got 32"},
               {"c64", "not of the form"},
               {"c64-w16x", "not of the form"},
               {"c 16-w8", "not of the form"},
               {"c+16-w+8", "not of the form"},
               {"c016-w08", "not of the form"},
               // Past int: undefined behaviour for the sscanf this replaced
               // (glibc truncated, and the round trip refused them too).
               {"c4294967312-w8", "not of the form"},
               {"c16-w99999999999", "not of the form"},
               {"c-16-w8", "chunk must be"},
               {"", "not of the form"}};
  for (const Bad& c : cases) {
    Schedule s;
    std::string error;
    EXPECT_FALSE(parse_schedule(c.text, &s, &error)) << c.text;
    EXPECT_NE(error.find(c.must_mention), std::string::npos) << c.text << ": " << error;
  }
  EXPECT_NE((Schedule{8, 16}.check()), "");
}

// Chunks of 16, vectors as wide as the target's (schedule.cpp): AVX-512,
// AVX2, then SSE or NEON; never wider than the knob allows.
TEST(Schedule, DefaultTakesTheTargetsVectors) {
  EXPECT_EQ(default_schedule(16).str(), "c16-w16");
  EXPECT_EQ(default_schedule(8).str(), "c16-w8");
  EXPECT_EQ(default_schedule(4).str(), "c16-w4");
  EXPECT_EQ(default_schedule(32).str(), "c16-w16");
  for (int floats : {4, 8, 16, 32}) EXPECT_EQ(default_schedule(floats).check(), "");
}

// A product's accumulators take half the vector registers: 16 of AVX-512's
// and AArch64's 32, 8 of AVX2's, SSE's and 32-bit ARM's 16 (2 vectors wide).
TEST(ChunkedSchedule, TileRowsFollowTheTargetsRegisters) {
  const std::pair<const char*, int> targets[] = {
      {"x86-64-linux-avx-avx2-fma-f16c-sse41", 4},
      {"x86-64-linux-sse41", 4},
      {"x86-64-linux-avx-avx2-fma-f16c-sse41-avx512-avx512_skylake", 8},
      {"x86-64-linux-avx-avx2-fma-sse41-avx512_sapphirerapids", 8},
      {"arm-64-linux", 8},
      {"arm-32-linux", 4},
  };
  for (const auto& [name, rows] : targets) EXPECT_EQ(chunked_tile_rows(Halide::Target(name)), rows) << name;
}

}  // namespace
}  // namespace gdr::schedules
