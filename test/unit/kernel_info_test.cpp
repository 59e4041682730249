// gdr::read_kernel_info: the one reading of a kernel's <name>_info table.
#include "gdr/kernel_info.h"

#include <gtest/gtest.h>

namespace gdr {
namespace {

int32_t no_op(const gdr_kernel_args*) { return 0; }

TEST(KernelInfo, ReadsTheTableIntoAKernel) {
  const int64_t table[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 40, 72, 8, 1360, 256};
  KernelInfo info;
  ASSERT_TRUE(read_kernel_info("k", table, &info));
  EXPECT_EQ(info.K, 40);
  EXPECT_EQ(info.V, 72);
  EXPECT_EQ(info.column_align, 8);
  EXPECT_EQ(info.scratch_floats, 1360);
  EXPECT_EQ(info.vector_bits, 256);
  const Kernel k = kernel_from_info("k", &no_op, info);
  EXPECT_EQ(k.name, "k");
  EXPECT_EQ(k.fn, &no_op);
  EXPECT_EQ(k.K, 40);
  EXPECT_EQ(k.V, 72);
  EXPECT_EQ(k.column_align, 8);
  ASSERT_TRUE(k.scratch_floats);
  EXPECT_EQ(k.scratch_floats(1000, 40, 72), 1360);
}

TEST(KernelInfo, RefusesAnotherAbiAndImpossibleKernels) {
  const int64_t other_abi[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION + 1, 40, 72, 8, 0, 256};
  const int64_t no_k[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 0, 72, 8, 0, 256};
  const int64_t negative_scratch[GDR_KERNEL_INFO_FIELDS] = {GDR_KERNEL_ABI_VERSION, 40, 72, 8, -1, 256};
  const std::pair<const int64_t*, const char*> cases[] = {
      {other_abi, "kernel 'k' was built for kernel ABI version 2, this runtime speaks 1"},
      {no_k, "kernel 'k' has an impossible description (K=0,"},
      {negative_scratch, "scratch_floats=-1"},
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
