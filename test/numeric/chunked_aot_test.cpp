// The AOT build (object + header from gdr-compile, linked with one Halide
// runtime object and the runtime's Halide bridge) against the JIT build of
// the same schedule: same code, so the same bits; and both within the
// contract. The header is gdr's (no Halide header): the entry point, its
// constants and the gdr::Kernel helper.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include <HalideRuntime.h>  // only for halide_set_error_handler below

#include "chunked_k24_v40_c16_w8_scalar_r2.h"
#include "chunked_k24_v40_c32_w8.h"
#include "chunked_route.h"
#include "gdr/halide_chunked_abi.h"
#include "gdr/schedules/chunked_schedule.h"

#define gdr_aot_entry gdr_aot_chunked_k24_v40_c32_w8

namespace gdr::test {
namespace {

const schedules::Schedule kSchedule{32, 8};

Kernel aot_kernel() {
  Kernel k;
  const Status s = gdr_aot_chunked_k24_v40_c32_w8_kernel(&k);
  EXPECT_TRUE(s) << s.message();
  return k;
}

// The header's constants and the object's table say what the JIT build of
// the schedule is.
TEST(ChunkedAot, HeaderAndTableDescribeTheKernel) {
  const Kernel k = aot_kernel();
  EXPECT_EQ(k.name, "gdr_aot_chunked_k24_v40_c32_w8");
  EXPECT_EQ(k.fn, &gdr_aot_chunked_k24_v40_c32_w8);
  EXPECT_EQ(k.K, 24);
  EXPECT_EQ(k.V, 40);
  EXPECT_EQ(k.column_align, schedules::chunked_column_align(40, kSchedule));
  ASSERT_TRUE(k.scratch_floats);
  EXPECT_EQ(k.scratch_floats(101, 24, 40), halide_chunked_scratch_floats(101, 24, 40));
  EXPECT_EQ(gdr_aot_chunked_k24_v40_c32_w8_K, 24);
  EXPECT_EQ(gdr_aot_chunked_k24_v40_c32_w8_V, 40);
  EXPECT_EQ(gdr_aot_chunked_k24_v40_c32_w8_scratch_floats, 24 * 40);
  EXPECT_EQ(gdr_aot_chunked_k24_v40_c32_w8_vector_bits, 256);
  EXPECT_EQ(std::string(gdr_aot_chunked_k24_v40_c32_w8_variant), "chunked K=24 V=40 c32-w8");
  EXPECT_EQ(std::string(gdr_aot_chunked_k24_v40_c32_w8_cpu_features),
            gdr_aot_chunked_k24_v40_c32_w8_required_cpu_features);
  EXPECT_NE(std::string(gdr_aot_chunked_k24_v40_c32_w8_target).find("(Halide x86-64-linux-"), std::string::npos);
  EXPECT_EQ(gdr_aot_chunked_k24_v40_c32_w8_info[GDR_INFO_ABI_VERSION], GDR_KERNEL_ABI_VERSION);
}

TEST(ChunkedAot, SameBitsAsJitAndWithinContract) {
  compiler::CompiledKernel jit = compiler::compile_chunked(24, 40, kSchedule);
  ASSERT_TRUE(jit.status) << jit.status.message();
  for (DecayRegime d : {DecayRegime::Uniform, DecayRegime::Zeros, DecayRegime::Strong}) {
    Problem a = make_problem(2, 2, 101, 24, 40, {d, BetaRegime::Uniform, true, 11});
    Problem b = a;
    Options o;
    o.threads = 2;
    ASSERT_TRUE(execute(aot_kernel(), a.tensors(), o));
    ASSERT_TRUE(execute(jit.kernel, b.tensors(), o));
    EXPECT_EQ(a.out, b.out) << regime_name(d);
    EXPECT_EQ(a.final_state, b.final_state) << regime_name(d);
    EXPECT_LE(relative_error(a, reference_f64(a)), 1e-4) << regime_name(d);
  }
}

// A kernel of another form (scalar decay, two readouts): its header and
// table say so, the runtime refuses calls of another form, and it gives
// the JIT build's bits.
TEST(ChunkedAot, AFormOfItsOwn) {
  Kernel k;
  ASSERT_TRUE(gdr_aot_chunked_scalar_r2_kernel(&k));
  EXPECT_EQ(gdr_aot_chunked_scalar_r2_decay_kind, GDR_DECAY_SCALAR);
  EXPECT_EQ(gdr_aot_chunked_scalar_r2_readouts, 2);
  EXPECT_EQ(gdr_aot_chunked_scalar_r2_info[GDR_INFO_DECAY_KIND], GDR_DECAY_SCALAR);
  EXPECT_EQ(gdr_aot_chunked_scalar_r2_info[GDR_INFO_READOUTS], 2);
  ASSERT_TRUE(k.decay_kind);
  EXPECT_EQ(*k.decay_kind, DecayKind::Scalar);
  EXPECT_EQ(k.readouts, 2);

  compiler::ChunkedSpec spec{24, 40, schedules::Schedule{16, 8}, compiler::Scheduler::Hand};
  spec.decay = DecayKind::Scalar;
  spec.readouts = 2;
  const compiler::CompiledKernel& jit = compiler::compile_chunked(spec);
  ASSERT_TRUE(jit.status) << jit.status.message();
  ProblemOptions po;
  po.form.decay = DecayKind::Scalar;
  po.form.query_heads = 4;  // H = 2: two readouts
  po.form.layout = Layout::TokenMajor;
  Problem a = make_problem(2, 2, 37, 24, 40, po);
  Problem b = a;
  Options o;
  o.threads = 2;
  ASSERT_TRUE(execute(k, a.tensors(), o));
  ASSERT_TRUE(execute(jit.kernel, b.tensors(), o));
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.final_state, b.final_state);
  EXPECT_LE(relative_error(a, reference_f64(a)), 1e-4);

  Problem channel = make_problem(1, 2, 5, 24, 40);
  const Status refused = execute(k, channel.tensors(), o);
  EXPECT_FALSE(refused);
  EXPECT_NE(refused.message().find("reads scalar decay but the call has channel decay"), std::string::npos)
      << refused.message();
}

// The kernel's arguments for every column of `p` (one head), without scratch.
gdr_kernel_args whole_call(Problem& p) { return single_head_args(p.tensors()); }

// More than one chunk needs K x V floats of scratch; the bridge refuses a
// missing or short one (code 2) instead of computing nothing or overrunning.
TEST(ChunkedAot, RefusesMissingOrShortScratch) {
  Problem p = make_problem(1, 1, 40, 24, 40);  // two chunks of 32
  gdr_kernel_args a = whole_call(p);
  EXPECT_EQ(gdr_aot_entry(&a), 2);
  EXPECT_STREQ(gdr_halide_chunked_error(), "chunked kernel: needs scratch of 960 floats, got 0");
  std::vector<float> scratch(24 * 40);
  a.scratch = scratch.data();
  a.scratch_floats = 24 * 40 - 1;
  EXPECT_EQ(gdr_aot_entry(&a), 2);
  // With its reason, as code 3 has (execute() had only "failed with code 2").
  EXPECT_STREQ(gdr_halide_chunked_error(), "chunked kernel: needs scratch of 960 floats, got 959");
  EXPECT_TRUE(std::all_of(p.out.begin(), p.out.end(), [](float x) { return std::isnan(x); }));
  a.scratch_floats = 24 * 40;
  EXPECT_EQ(gdr_aot_entry(&a), 0);
  EXPECT_LE(relative_error(p, reference_f64(p)), 1e-4);

  // One chunk goes straight from initial_state to final_state: no scratch.
  Problem q = make_problem(1, 1, 32, 24, 40);
  gdr_kernel_args b = whole_call(q);
  EXPECT_EQ(gdr_aot_entry(&b), 0);
  EXPECT_LE(relative_error(q, reference_f64(q)), 1e-4);
}

// Called directly, past the runtime's K check: the pipeline itself refuses
// rows of 16 channels (query, key, decay) when it was built for K = 24.
TEST(ChunkedAot, RejectsTheWrongHeadSize) {
  Problem p = make_problem(1, 1, 10, 16, 40);
  gdr_kernel_args a = whole_call(p);
  // The AOT runtime's default handler aborts; this one only records.
  static std::string message;
  halide_error_handler_t previous =
      halide_set_error_handler([](void*, const char* m) { message = m; });
  EXPECT_NE(gdr_aot_entry(&a), 0);
  halide_set_error_handler(previous);
  EXPECT_NE(message.find("beyond the max (15) in dimension 0"), std::string::npos) << message;
}

// With no handler of the program's own, the bridge replaces the Halide
// runtime's default handler (which aborts) on the first chunked call: the
// same error is the kernel's nonzero code and the bridge's message.
TEST(ChunkedAot, HalideErrorsAreCodesWithMessagesNotAborts) {
  Problem p = make_problem(1, 1, 10, 16, 40);
  gdr_kernel_args a = whole_call(p);
  EXPECT_NE(gdr_aot_entry(&a), 0);
  const std::string message = gdr_halide_chunked_error();
  EXPECT_NE(message.find("beyond the max (15) in dimension 0"), std::string::npos) << message;
}

}  // namespace
}  // namespace gdr::test
