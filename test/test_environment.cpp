// Linked into every test binary (gdr_test_main): before any test runs, point
// the kernel disk cache at the build folder, so that tests, and the gdr-run
// processes they start, never write the user's cache. Tests that need a
// folder of their own set GDR_CACHE_DIR again. The umask is 022 whatever the
// user's (002 gives the files tests write their group's write permission,
// which the kernel cache and the tuning database refuse); tests of other
// umasks set their own.
#include <stdlib.h>
#include <sys/stat.h>

namespace {

[[maybe_unused]] const bool kCacheInBuildFolder = setenv("GDR_CACHE_DIR", GDR_TEST_CACHE_DIR, 1) == 0;
[[maybe_unused]] const mode_t kUserUmask = umask(022);

}  // namespace
