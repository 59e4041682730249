// gdr::read_kernel_info: the one reading of a kernel's <name>_info table.
#include "gdr/kernel_info.h"

#include <gtest/gtest.h>

#include "gdr/loader.h"

namespace gdr {
namespace {

int32_t no_op(const gdr_kernel_args*) { return 0; }

TEST(KernelInfo, ReadsTheTableIntoAKernel) {
  int64_t table[GDR_KERNEL_INFO_FIELDS] = {};
  table[GDR_INFO_ABI_VERSION] = GDR_KERNEL_ABI_VERSION;
  table[GDR_INFO_K] = 40;
  table[GDR_INFO_V] = 72;
  table[GDR_INFO_COLUMN_ALIGN] = 8;
  table[GDR_INFO_SCRATCH_FLOATS] = 1360;
  table[GDR_INFO_VECTOR_BITS] = 256;
  table[GDR_INFO_DECAY_KIND] = GDR_DECAY_SCALAR;
  table[GDR_INFO_READOUTS] = 2;
  table[GDR_INFO_TOKEN_STEPS] = 1;
  KernelInfo info;
  ASSERT_TRUE(read_kernel_info("k", table, &info));
  EXPECT_EQ(info.K, 40);
  EXPECT_EQ(info.V, 72);
  EXPECT_EQ(info.column_align, 8);
  EXPECT_EQ(info.scratch_floats, 1360);
  EXPECT_EQ(info.vector_bits, 256);
  EXPECT_EQ(info.decay_kind, DecayKind::Scalar);
  EXPECT_EQ(info.readouts, 2);
  EXPECT_TRUE(info.token_steps);
  const Kernel k = kernel_from_info("k", &no_op, info);
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.fn, &no_op);
  EXPECT_EQ(k.K, 40);
  EXPECT_EQ(k.V, 72);
  EXPECT_EQ(k.column_align, 8);
  EXPECT_EQ(k.decay_kind, DecayKind::Scalar);
  EXPECT_EQ(k.readouts, 2);
  EXPECT_TRUE(k.token_steps);
  ASSERT_TRUE(k.scratch_floats);
  EXPECT_EQ(k.scratch_floats(1000, 40, 72), 1360);
}

// Null pointers are errors, not a crash (a review).
TEST(KernelInfo, NullPointersAreErrors) {
  KernelInfo info;
  const int64_t table[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 40, 72, 8, 0, 256, 0, 1};
  EXPECT_EQ(read_kernel_info("k", nullptr, &info).message(), "kernel 'k': its info table is a null pointer");
  EXPECT_EQ(read_kernel_info("k", table, nullptr).message(), "kernel 'k': info is a null pointer");
  Kernel* no_kernel = nullptr;
  EXPECT_EQ(load_kernel("k.so", "k", no_kernel).message(), "load_kernel: kernel is a null pointer");
}

TEST(KernelInfo, RefusesAnotherAbiAndImpossibleKernels) {
  // Version 1's table had six fields, version 2's eight: only the first is
  // read before refusing. Versions 3 to 5 had today's nine (3's arguments
  // ended in next_initial_state, not next_task; 4's had no first_sums_tag,
  // 5's no out_stores).
  const int64_t version_1[6] = {1, 40, 72, 8, 0, 256};
  const int64_t version_2[8] = {2, 40, 72, 8, 0, 256, 0, 1};
  const int64_t version_3[9] = {3, 40, 72, 8, 0, 256, 0, 1, 1};
  const int64_t version_4[9] = {4, 40, 72, 8, 0, 256, 0, 1, 1};
  const int64_t version_5[9] = {5, 40, 72, 8, 0, 256, 0, 1, 1};
  const int64_t no_k[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 0, 72, 8, 0, 256, 0, 1};
  const int64_t negative_scratch[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 40, 72, 8, -1, 256, 0, 1};
  const int64_t unknown_decay[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 40, 72, 8, 0, 256, 7, 1};
  const int64_t no_readouts[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 40, 72, 8, 0, 256, 0, 0};
  const int64_t token_steps_2[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 40, 72, 8, 0, 256, 0, 1, 2};
  const std::pair<const int64_t*, const char*> cases[] = {
      {version_1, "kernel 'k' was built for kernel ABI version 1, this runtime speaks 6"},
      {version_2, "kernel 'k' was built for kernel ABI version 2, this runtime speaks 6"},
      {version_3, "kernel 'k' was built for kernel ABI version 3, this runtime speaks 6"},
      {version_4, "kernel 'k' was built for kernel ABI version 4, this runtime speaks 6"},
      {version_5, "kernel 'k' was built for kernel ABI version 5, this runtime speaks 6"},
      {no_k, "kernel 'k' has an impossible description (K=0,"},
      {negative_scratch, "scratch_floats=-1"},
      {unknown_decay, "decay_kind=7"},
      {no_readouts, "readouts=0"},
      {token_steps_2, "token_steps=2"},
  };
  for (const auto& [table, message] : cases) {
    KernelInfo info;
    info.K = 7;
    const Status s = read_kernel_info("k", table, &info);
    ASSERT_FALSE(s) << message;
    EXPECT_NE(s.message().find(message), std::string::npos) << s.message();
    EXPECT_EQ(info.K, 7);  // untouched
  }
}

}  // namespace
}  // namespace gdr
