/* Libraries gdr::load_kernel must refuse before loading them
 * (loader_test.cpp), so their constructor, which marks the process, must
 * never run. GDR_FAKE_FORM says what each is:
 *   0: a kernel that needs the CPU features GDR_FAKE_FEATURES;
 *   1: not a kernel of gdr's at all (no entry point, no table);
 *   2: an entry point without its <name>_info table;
 *   3: a <name>_info table shorter than GDR_KERNEL_INFO_FIELDS values;
 *   4: a kernel built for an older kernel ABI (ABI 2's table, one value shorter);
 *   5: a kernel whose <name>_cpu_features has no bytes in the file (.bss).
 * Its kernel would only return an error. */
#include <stdlib.h>

#include "gdr/kernel_abi.h"

#if GDR_FAKE_FORM != 1
int32_t gdr_fake_kernel(const gdr_kernel_args* args) { return args ? 3 : 3; }
#else
int32_t something_else(const gdr_kernel_args* args) { return args ? 3 : 3; }
#endif
#if GDR_FAKE_FORM == 0
const char gdr_fake_kernel_cpu_features[] = GDR_FAKE_FEATURES;
#elif GDR_FAKE_FORM == 5
char gdr_fake_kernel_cpu_features[16]; /* zeros: .bss, no bytes in the file */
#endif
#if GDR_FAKE_FORM == 0 || GDR_FAKE_FORM == 5
const int64_t gdr_fake_kernel_info[GDR_KERNEL_INFO_FIELDS] = {
    [GDR_INFO_ABI_VERSION] = GDR_KERNEL_ABI_VERSION, [GDR_INFO_K] = 16, [GDR_INFO_V] = 16,
    [GDR_INFO_VECTOR_BITS] = 128, [GDR_INFO_READOUTS] = 1};
#elif GDR_FAKE_FORM == 4
/* ABI 2's table: 8 values, one fewer than now. */
const int64_t gdr_fake_kernel_info[8] = {2, 16, 16, 0, 0, 128, 0, 1};
#elif GDR_FAKE_FORM == 3
const int64_t gdr_fake_kernel_info[3] = {GDR_KERNEL_ABI_VERSION, 16, 16};
#endif

__attribute__((constructor)) static void mark_loaded(void) { setenv("GDR_FAKE_KERNEL_LOADED", "1", 1); }
