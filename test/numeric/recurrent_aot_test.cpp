// The recurrent route as an AOT user gets it: the object and header from
// gdr-compile (which need no compiler in the program; this test links the
// compiler only to compare with the JIT build), a gdr::Kernel built from the
// header's constants, run through gdr::execute. Same code as the JIT build
// of the same schedule for the host, so the same bits; within the contract.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gdr/compiler/object_kernel_info.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/variant.h"
#include "recurrent_k40_v72.h"
#include "route_tester.h"

#define AOT_NAME gdr_recurrent_f32_k40_v72__w8_vt32_u3_p1_t1

namespace gdr::test {
namespace {

#define AOT_CONSTANT(suffix) AOT_CONSTANT_(AOT_NAME, suffix)
#define AOT_CONSTANT_(name, suffix) AOT_CONSTANT__(name, suffix)
#define AOT_CONSTANT__(name, suffix) name##_##suffix

Kernel aot_kernel() {
  Kernel k;
  k.name = "aot w8-vt32-u3-p1";
  k.fn = AOT_NAME;
  k.K = AOT_CONSTANT(K);
  k.V = AOT_CONSTANT(V);
  k.column_align = AOT_CONSTANT(column_align);
  const int64_t scratch = AOT_CONSTANT(scratch_floats);
  k.scratch_floats = [scratch](int64_t, int64_t, int64_t) { return scratch; };
  return k;
}

TEST(RecurrentAot, HeaderAndObjectDescribeTheKernel) {
  EXPECT_EQ(AOT_CONSTANT(K), 40);
  EXPECT_EQ(AOT_CONSTANT(V), 72);
  EXPECT_EQ(AOT_CONSTANT(column_align), 8);
  // The state between blocks (K · V), the packed tile (K · v_tile), then a
  // block of 128 tokens' rows (gated key, query and row factor: 3 K) and
  // scalars (8: full, k · q, and the corrections by 3 tokens before, key and
  // query), a scale per sweep (one token each: --sweep-tokens 1), K (P), then
  // the next task's first sums (of up to 4 tokens, key and query: 8 v_tile)
  // and their tag (2).
  EXPECT_EQ(AOT_CONSTANT(scratch_floats), 40 * 72 + 40 * 32 + 128 * (3 * 40 + 8) + 128 * 40 + 40 + 8 * 32 + 2);
  // The object's info (kernel_abi.h), declared by the header, says the same.
  const int64_t* info = AOT_CONSTANT(info);
  EXPECT_EQ(info[GDR_INFO_ABI_VERSION], GDR_KERNEL_ABI_VERSION);
  EXPECT_EQ(info[GDR_INFO_K], AOT_CONSTANT(K));
  EXPECT_EQ(info[GDR_INFO_V], AOT_CONSTANT(V));
  EXPECT_EQ(info[GDR_INFO_COLUMN_ALIGN], AOT_CONSTANT(column_align));
  EXPECT_EQ(info[GDR_INFO_SCRATCH_FLOATS], AOT_CONSTANT(scratch_floats));
  EXPECT_EQ(info[GDR_INFO_VECTOR_BITS], 8 * 32);
  // It steps token by token: a sequence split across calls at multiples of
  // GDR_TOKEN_BLOCK gives the bits of one call.
  EXPECT_EQ(info[GDR_INFO_TOKEN_STEPS], 1);
}

// gdr-compile writes the header's constants from the object's own table,
// read without running the object (it may be for another CPU).
TEST(RecurrentAot, TheObjectsTableIsReadWithoutRunningIt) {
  const compiler::KernelSpec spec{40, 72};
  const compiler::RecurrentSchedule schedule{8, 32, 3, 1, 1};
  std::vector<char> object;
  ASSERT_TRUE(compiler::compile_recurrent_object(spec, schedule, compiler::host_target(), &object));
  KernelInfo info;
  const std::string name = compiler::recurrent_variant({spec.K, spec.V}, schedule).name();
  const Status s = compiler::object_kernel_info(object, name, &info);
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(info.K, AOT_CONSTANT(K));
  EXPECT_EQ(info.V, AOT_CONSTANT(V));
  EXPECT_EQ(info.column_align, AOT_CONSTANT(column_align));
  EXPECT_EQ(info.scratch_floats, AOT_CONSTANT(scratch_floats));
  EXPECT_EQ(info.vector_bits, 256);
  EXPECT_TRUE(info.token_steps);

  const Status other = compiler::object_kernel_info(object, "gdr_other_kernel", &info);
  ASSERT_FALSE(other);
  EXPECT_NE(other.message().find("has no gdr_other_kernel_info"), std::string::npos) << other.message();
  const Status garbage = compiler::object_kernel_info({'n', 'o', 't'}, name, &info);
  ASSERT_FALSE(garbage);
  EXPECT_NE(garbage.message().find("cannot read the object of " + name), std::string::npos)
      << garbage.message();
}

TEST(RecurrentAot, SameBitsAsJitAndWithinContract) {
  Kernel jit;
  ASSERT_TRUE(compiler::compiled_recurrent_kernel({40, 72}, {8, 32, 3, 1, 1}, &jit));
  for (int64_t T : {0, 1, 2, 33})
    for (DecayRegime d : {DecayRegime::Uniform, DecayRegime::Zeros, DecayRegime::One}) {
      Problem a = make_problem(2, 3, T, 40, 72, {d, BetaRegime::Uniform, true, 5});
      Problem b = a;
      Options o;
      o.threads = 2;
      o.column_parts = 2;  // heads split at column_align
      ASSERT_TRUE(execute(aot_kernel(), a.tensors(), o));
      ASSERT_TRUE(execute(jit, b.tensors(), o));
      EXPECT_EQ(a.out, b.out) << "T=" << T << " " << " decay regime " << static_cast<int>(d);
      EXPECT_EQ(a.final_state, b.final_state) << "T=" << T << " " << " decay regime " << static_cast<int>(d);
      if (T > 0) {
        Problem c = make_problem(2, 3, T, 40, 72, {d, BetaRegime::Uniform, true, 5});
        expect_within_contract(c, o, "AOT T=" + std::to_string(T),
                               [](const Tensors& t, const Options& opt) { return execute(aot_kernel(), t, opt); });
      }
    }
}

// Called directly (not through gdr::execute), the entry point still refuses
// sizes it was not built for (1) and a short scratch (2), writing nothing.
TEST(RecurrentAot, EntryRefusesOtherSizesAndShortScratch) {
  Problem p = make_problem(1, 1, 3, 40, 72);
  const auto out_before = p.out;
  const Tensors t = p.tensors();
  std::vector<float> scratch(AOT_CONSTANT(scratch_floats));
  gdr_kernel_args a = single_head_args(t);
  a.scratch = scratch.data();
  a.scratch_floats = static_cast<int64_t>(scratch.size());
  const auto state_before = p.final_state;
  gdr_kernel_args wrong_k = a;
  wrong_k.K = 41;
  EXPECT_EQ(AOT_NAME(&wrong_k), 1);
  gdr_kernel_args wrong_v = a;
  wrong_v.V = 73;
  EXPECT_EQ(AOT_NAME(&wrong_v), 1);
  gdr_kernel_args wrong_decay = a;
  wrong_decay.decay_kind = GDR_DECAY_SCALAR;
  EXPECT_EQ(AOT_NAME(&wrong_decay), 1);
  gdr_kernel_args wrong_readouts = a;
  wrong_readouts.readouts = 2;
  EXPECT_EQ(AOT_NAME(&wrong_readouts), 1);
  gdr_kernel_args short_scratch = a;
  short_scratch.scratch_floats = AOT_CONSTANT(scratch_floats) - 1;
  EXPECT_EQ(AOT_NAME(&short_scratch), 2);
  // Compared as bytes: the outputs start filled with NaN.
  auto unchanged = [&] {
    return std::memcmp(p.out.data(), out_before.data(), out_before.size() * sizeof(float)) == 0 &&
           std::memcmp(p.final_state.data(), state_before.data(),
                       state_before.size() * sizeof(float)) == 0;
  };
  EXPECT_TRUE(unchanged());
  EXPECT_EQ(AOT_NAME(&a), 0);
  EXPECT_FALSE(unchanged());
}

}  // namespace
}  // namespace gdr::test
