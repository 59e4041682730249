// Linked into every test binary (gdr_test_main): before any test runs, point
// the kernel disk cache at the build folder, so that tests, and the gdr-run
// processes they start, never write the user's cache. Tests that need a
// folder of their own set GDR_CACHE_DIR again.
#include <stdlib.h>

namespace {

[[maybe_unused]] const bool kCacheInBuildFolder = setenv("GDR_CACHE_DIR", GDR_TEST_CACHE_DIR, 1) == 0;

}  // namespace
