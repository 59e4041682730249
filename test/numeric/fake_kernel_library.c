/* A kernel library that says it needs the CPU features GDR_FAKE_FEATURES:
 * gdr::load_kernel must refuse it before loading it (loader_test.cpp), so
 * its constructor, which marks the process, must never run. Its kernel
 * would only return an error. */
#include <stdlib.h>

#include "gdr/kernel_abi.h"

int32_t gdr_fake_kernel(const gdr_kernel_args* args) { return args ? 3 : 3; }
const char gdr_fake_kernel_cpu_features[] = GDR_FAKE_FEATURES;
const int64_t gdr_fake_kernel_info[GDR_KERNEL_INFO_FIELDS] = {
    [GDR_INFO_ABI_VERSION] = GDR_KERNEL_ABI_VERSION, [GDR_INFO_K] = 16, [GDR_INFO_V] = 16,
    [GDR_INFO_VECTOR_BITS] = 128, [GDR_INFO_READOUTS] = 1};

__attribute__((constructor)) static void mark_loaded(void) { setenv("GDR_FAKE_KERNEL_LOADED", "1", 1); }
