// The variant key: kernel names, text forms, ordering and the disk cache's
// description, each against the text the routes wrote before it existed.
#include "gdr/compiler/variant.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gdr/compiler/target.h"

namespace gdr::compiler {
namespace {

const Variant kRecurrent = recurrent_variant({128, 128}, {16, 64, 1, 2});
const Variant kChunked = chunked_variant({128, 128}, {16, 16});

TEST(Variant, NameIsTheKernelSymbol) {
  EXPECT_EQ(kRecurrent.name(), "gdr_recurrent_f32_k128_v128__w16_vt64_u1_p2");
  EXPECT_EQ(kChunked.name(), "gdr_chunked_f32_k128_v128__c16_w16");
  EXPECT_EQ(chunked_variant({40, 72}, {32, 8}, Scheduler::Adams2019).name(),
            "gdr_chunked_f32_k40_v72__c32_w8_adams2019");
  EXPECT_EQ(recurrent_variant({40, 73}, {8, 24, 4, 0}).name(), "gdr_recurrent_f32_k40_v73__w8_vt24_u4_p0");
}

// The kernel's form is part of its name, its text and its identity.
TEST(Variant, FormIsPartOfTheKey) {
  const Variant qwen = recurrent_variant({128, 128, DecayKind::Scalar, 1}, {16, 64, 1, 2});
  const Variant executorch = recurrent_variant({128, 128, DecayKind::Scalar, 2}, {16, 64, 1, 2});
  EXPECT_EQ(qwen.name(), "gdr_recurrent_f32_k128_v128_sd__w16_vt64_u1_p2");
  EXPECT_EQ(executorch.name(), "gdr_recurrent_f32_k128_v128_sd_r2__w16_vt64_u1_p2");
  EXPECT_EQ(executorch.str(), "recurrent K=128 V=128 w16-vt64-u1-p2 decay=scalar readouts=2");
  EXPECT_EQ(chunked_variant({64, 64, DecayKind::Scalar, 1}, {32, 8}).str(),
            "chunked K=64 V=64 c32-w8 decay=scalar");
  EXPECT_NE(qwen, kRecurrent);
  EXPECT_NE(qwen, executorch);
  EXPECT_TRUE(qwen < executorch || executorch < qwen);
  EXPECT_EQ(qwen.spec(), (KernelSpec{128, 128, DecayKind::Scalar, 1}));
  for (const Variant& v : {qwen, executorch}) {
    Variant parsed;
    std::string error;
    ASSERT_TRUE(parse_variant(v.str(), &parsed, &error)) << error;
    EXPECT_EQ(parsed, v);
  }
  // Readouts shrink the default tile to what the registers hold: with 3
  // readouts a vector takes 4 accumulators, so at most 8 vectors.
  Target wide;
  wide.vector_bits = 512;
  const Variant decode = default_variant(Route::Recurrent, {128, 256, DecayKind::Channel, 3}, 1, wide);
  EXPECT_EQ(decode.recurrent.v_tile, 8 * 16);
  EXPECT_EQ(default_variant(Route::Recurrent, {128, 256, DecayKind::Channel, 7}, 1, wide).recurrent.v_tile,
            4 * 16);
  // Prefill sweeps pairs of tokens: 3 readouts keep the default 2 vectors
  // (16 accumulators, half the 32 registers), 4 take 1 (2 would be 20).
  EXPECT_EQ(default_variant(Route::Recurrent, {128, 128, DecayKind::Scalar, 3}, 512, wide).recurrent.v_tile,
            2 * 16);
  EXPECT_EQ(default_variant(Route::Recurrent, {128, 128, DecayKind::Scalar, 4}, 512, wide).recurrent.v_tile,
            1 * 16);
}

// On x86 below AVX-512 (16 registers): AVX2 sweeps pairs of 2 vectors,
// K <= 64 unrolled by 2 (never past K); two or more readouts one token on
// what half the registers hold; decode its 8-vector tile, 4 vectors at
// K <= 64; SSE one token on 4 vectors (DefaultSchedule.cpp, variant.cpp).
TEST(Variant, DefaultsOn16Registers) {
  Target avx2;
  avx2.triple = "x86_64-pc-linux-gnu";
  avx2.vector_bits = 256;
  Target sse = avx2;
  sse.vector_bits = 128;
  auto schedule = [](const KernelSpec& spec, int64_t T, const Target& target) {
    return default_variant(Route::Recurrent, spec, T, target).schedule_str();
  };
  EXPECT_EQ(schedule({128, 128}, 512, avx2), "w8-vt16-u1-p2");
  EXPECT_EQ(schedule({64, 64}, 512, avx2), "w8-vt16-u2-p2");
  EXPECT_EQ(schedule({1, 8}, 512, avx2), "w8-vt8-u1-p2");
  EXPECT_EQ(schedule({128, 128, DecayKind::Scalar, 2}, 512, avx2), "w8-vt16-u1-p2-t1");
  EXPECT_EQ(schedule({64, 64, DecayKind::Channel, 4}, 512, avx2), "w8-vt8-u1-p2-t1");
  EXPECT_EQ(schedule({128, 128}, 1, avx2), "w8-vt64-u1-p2");
  EXPECT_EQ(schedule({64, 64}, 1, avx2), "w8-vt32-u2-p2");
  EXPECT_EQ(schedule({96, 64}, 1, avx2), "w8-vt64-u1-p2");
  EXPECT_EQ(schedule({128, 128}, 512, sse), "w4-vt16-u1-p2-t1");
  // The chunked route's vectors are the target's too (w16 took 1.23-1.50x
  // w8's time on AVX2, schedule.cpp).
  Target wide = avx2;
  wide.vector_bits = 512;
  EXPECT_EQ(default_variant(Route::Chunked, {128, 128}, 512, avx2).schedule_str(), "c16-w8");
  EXPECT_EQ(default_variant(Route::Chunked, {128, 128}, 512, sse).schedule_str(), "c16-w4");
  EXPECT_EQ(default_variant(Route::Chunked, {128, 128}, 512, wide).schedule_str(), "c16-w16");
}

TEST(Variant, ScheduleAndFullText) {
  EXPECT_EQ(kRecurrent.schedule_str(), "w16-vt64-u1-p2");
  EXPECT_EQ(kChunked.schedule_str(), "c16-w16");
  EXPECT_EQ(kRecurrent.str(), "recurrent K=128 V=128 w16-vt64-u1-p2");
  EXPECT_EQ(kChunked.str(), "chunked K=128 V=128 c16-w16");
  EXPECT_EQ(chunked_variant({8, 16}, {64, 4}, Scheduler::Adams2019).str(),
            "chunked K=8 V=16 c64-w4-adams2019");
}

TEST(Variant, ParseRoundTrips) {
  for (const Variant& v : {kRecurrent, kChunked, recurrent_variant({40, 73}, {8, 24, 4, 3}),
                           chunked_variant({8, 16}, {64, 4}, Scheduler::Adams2019)}) {
    Variant parsed;
    std::string error;
    ASSERT_TRUE(parse_variant(v.str(), &parsed, &error)) << v.str() << ": " << error;
    EXPECT_EQ(parsed, v) << v.str();
    EXPECT_EQ(parsed.str(), v.str());
    EXPECT_EQ(parsed.name(), v.name());
  }
}

TEST(Variant, ParseRejectsWithOneLineNamingThePart) {
  struct Case {
    const char* text;
    const char* names;
  };
  for (const Case& c : {Case{"", "expected <route> K=<n> V=<n> <schedule>"},
                        Case{"recurrent K=128 V=128", "expected <route> K=<n> V=<n> <schedule>"},
                        Case{"recurrent K=128 V=128 w16-vt64-u1-p2 decay=diagonal", "decay=diagonal"},
                        Case{"recurrent K=128 V=128 w16-vt64-u1-p2 readouts=0", "readouts=0"},
                        Case{"auto K=128 V=128 w16-vt64-u1-p2", "route: expected recurrent or chunked"},
                        Case{"baseline-two-pass K=128 V=128 c16-w16", "route:"},
                        Case{"recurrent K=0 V=128 w16-vt64-u1-p2", "K: expected K=<positive integer>"},
                        Case{"recurrent K=12x V=128 w16-vt64-u1-p2", "K:"},
                        Case{"recurrent 128 V=128 w16-vt64-u1-p2", "K:"},
                        Case{"recurrent K=128 V=-1 w16-vt64-u1-p2", "V:"},
                        Case{"recurrent K=128 V=128 c16-w16", "recurrent schedule 'c16-w16'"},
                        Case{"recurrent K=128 V=128 w8-vt20-u1", "a multiple of width"},
                        Case{"recurrent K=128 V=128 w16-vt64-u1-adams2019", "recurrent schedule"},
                        Case{"chunked K=128 V=128 c15-w16", "chunk must be 16, 32, 64 or 128"},
                        Case{"chunked K=128 V=128 w16-vt64-u1-p2", "schedule 'w16-vt64-u1-p2'"}}) {
    Variant v = kChunked;
    std::string error;
    EXPECT_FALSE(parse_variant(c.text, &v, &error)) << c.text;
    EXPECT_NE(error.find(c.names), std::string::npos) << c.text << " -> " << error;
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    EXPECT_EQ(v, kChunked) << "left untouched: " << c.text;
  }
}

TEST(Variant, ParseScheduleOfARoute) {
  Variant v = recurrent_variant({64, 64}, {});
  std::string error;
  ASSERT_TRUE(parse_variant_schedule(Route::Recurrent, "w8-vt24-u4-p3", &v, &error)) << error;
  EXPECT_EQ(v.recurrent, (RecurrentSchedule{8, 24, 4, 3}));
  EXPECT_EQ(v.K, 64);
  // Written before the prefetch knob existed: no prefetch.
  ASSERT_TRUE(parse_variant_schedule(Route::Recurrent, "w8-vt24-u4", &v, &error)) << error;
  EXPECT_EQ(v.recurrent, (RecurrentSchedule{8, 24, 4, 0}));
  for (const char* bad : {"w8-vt20-u1", "w0-vt0-u1", "w8-vt16", "w8-vt16-u1x", "w8-vt16-u1-p",
                          "w8-vt16-u1-p-1", "w8-vt16-u1-p2x", "c16-w16", "", "w 8-vt16-u1",
                          "w8-vt+16-u1", "w08-vt16-u1-p2"})
    EXPECT_FALSE(parse_variant_schedule(Route::Recurrent, bad, &v, &error)) << bad;
  EXPECT_FALSE(parse_variant_schedule(Route::Auto, "w8-vt24-u4", &v, &error));
  EXPECT_EQ(error, "route 'auto' has no tuned schedules");
}

TEST(Variant, EqualityAndOrderReadOnlyTheRoutesFields) {
  Variant a = kRecurrent;
  a.chunked = {128, 4};  // not read by the recurrent route
  EXPECT_EQ(a, kRecurrent);
  Variant b = kChunked;
  b.recurrent = {4, 4, 1, 0};
  EXPECT_EQ(b, kChunked);
  EXPECT_NE(kChunked, chunked_variant({128, 128}, {16, 16}, Scheduler::Adams2019));
  // Route first (recurrent before chunked, their enum order), then K, V, schedule.
  const std::set<Variant> sorted = {kChunked, recurrent_variant({128, 128}, {16, 128, 1, 2}),
                                    kRecurrent, recurrent_variant({64, 256}, {16, 128, 1, 2}), a};
  std::string order;
  for (const Variant& v : sorted) order += v.str() + "; ";
  EXPECT_EQ(order,
            "recurrent K=64 V=256 w16-vt128-u1-p2; recurrent K=128 V=128 w16-vt64-u1-p2; "
            "recurrent K=128 V=128 w16-vt128-u1-p2; chunked K=128 V=128 c16-w16; ");
}

TEST(Variant, CacheDescriptionIsTheRoutesOldKeyText) {
  const Target target{"x86_64-pc-linux-gnu", "icelake-client", "+avx512f,+fma", 512};
  EXPECT_EQ(cache_description(kRecurrent, target),
            "route recurrent\ntriple x86_64-pc-linux-gnu\ncpu icelake-client\nfeatures "
            "+avx512f,+fma\nmodule gdr.kernel @gdr_recurrent_f32_k128_v128__w16_vt64_u1_p2 "
            "problem <k = 128, v = 128, element_type = f32, gate = channelwise, route = recurrent> "
            "schedule <vector_width = 16, v_tile = 64, unroll = 1, prefetch = 2> target <cpu = "
            "\"icelake-client\", vector_bits = 512>\n");
  const std::string chunked = cache_description(kChunked, target);
  const std::string head =
      "route chunked\nkernel gdr_chunked_f32_k128_v128__c16_w16\nschedule c16-w16\nhalide ";
  EXPECT_EQ(chunked.substr(0, head.size()), head) << chunked;
  EXPECT_NE(chunked.find("\nhalide target x86-64-linux"), std::string::npos) << chunked;
  // Adams2019 kernels are compiled each time: no key.
  EXPECT_EQ(cache_description(chunked_variant({128, 128}, {16, 16}, Scheduler::Adams2019), target), "");
}

TEST(Variant, DefaultsOfEachRoute) {
  const Target wide{"x86_64-pc-linux-gnu", "icelake-client", "", 512};
  // The dialect's default for K = 128 on 512-bit vectors: pairs of tokens
  // on 4 vectors of 16 on Intel's cores, on 2 on AMD's.
  EXPECT_EQ(dialect_default_recurrent(128, wide), (RecurrentSchedule{16, 64, 1, 2}));
  EXPECT_EQ(default_variant(Route::Recurrent, {128, 128}, 512, wide),
            recurrent_variant({128, 128}, {16, 64, 1, 2}));
  const Target zen{"x86_64-pc-linux-gnu", "znver4", "", 512};
  EXPECT_EQ(dialect_default_recurrent(128, zen), (RecurrentSchedule{16, 32, 1, 2}));
  // Decode widens the tile to 8 vectors; V clamps it to its whole vectors.
  EXPECT_EQ(default_variant(Route::Recurrent, {128, 128}, 1, wide).recurrent.v_tile, 128);
  EXPECT_EQ(default_variant(Route::Recurrent, {128, 40}, 512, wide).recurrent.v_tile, 32);
  // K = 256: 2 vectors of 16 on Intel's cores, four rows a step (not at
  // decode, whose wider tile steps one); one row on AMD's.
  EXPECT_EQ(default_variant(Route::Recurrent, {256, 256}, 512, wide).recurrent,
            (RecurrentSchedule{16, 32, 4, 2}));
  EXPECT_EQ(default_variant(Route::Recurrent, {256, 256}, 1, wide).recurrent, (RecurrentSchedule{16, 128, 1, 2}));
  EXPECT_EQ(dialect_default_recurrent(256, zen).unroll, 1);
  EXPECT_EQ(default_variant(Route::Recurrent, {128, 8}, 512, wide).recurrent.v_tile, 16);
  EXPECT_EQ(default_variant(Route::Chunked, {64, 96}, 512, wide), chunked_variant({64, 96}, {16, 16}));
}

}  // namespace
}  // namespace gdr::compiler
