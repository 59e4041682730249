// A deployed program: only the runtime (no compiler library is linked into
// this test), loading a kernel gdr-compile linked into a shared object and
// running it within the contract; bad files are refused with a message.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>
#include <string>

#include "checked_dlopen.h"
#include "gdr/kernel_abi.h"
#include "gdr/loader.h"
#include "library_facts.h"
#include "route_tester.h"
#include "temp_dir.h"

namespace gdr::test {
namespace {

const std::string kLibrary = GDR_TEST_KERNEL_LIBRARY;  // gdr-compile --shared 1
const std::string kSymbol = "gdr_recurrent_f32_k40_v72__w8_vt32_u3_p1";

int32_t sentinel_kernel(const gdr_kernel_args*) { return 0; }

TEST(Loader, LoadsAndRunsAGeneratedKernelWithinTheContract) {
  Kernel k;
  const Status loaded = load_kernel(kLibrary, kSymbol, &k);
  ASSERT_TRUE(loaded) << loaded.message();
  EXPECT_EQ(k.name, kSymbol);
  EXPECT_EQ(k.K, 40);
  EXPECT_EQ(k.V, 72);
  EXPECT_EQ(k.column_align, 8);
  ASSERT_TRUE(k.scratch_floats);
  // The state between blocks, the packed tile, a block of 128 tokens' rows (3 K) and scalars (8), a
  // scale per pair, K (P), the next task's first sums (up to 4 tokens': 8
  // tiles) and their tag (LowerRecurrent.cpp).
  EXPECT_EQ(k.scratch_floats(1, 40, 72), 40 * 72 + 40 * 32 + 128 * (3 * 40 + 8) + 64 * 40 + 40 + 8 * 32 + 2);
  Options o;
  o.threads = 2;
  o.column_parts = 3;
  const Runner loaded_kernel = [&](const Tensors& t, const Options& opt) { return execute(k, t, opt); };
  for (int64_t T : {0, 1, 2, 33})
    for (DecayRegime d : {DecayRegime::Uniform, DecayRegime::Zeros, DecayRegime::One}) {
      Problem p = make_problem(2, 3, T, 40, 72, {d, BetaRegime::Uniform, true, 9});
      expect_within_contract(p, o, "loaded T=" + std::to_string(T) + " decay " +
                                       std::to_string(static_cast<int>(d)), loaded_kernel);
    }
  // The runtime still checks calls against what the library says it is.
  Problem other = make_problem(1, 1, 2, 40, 64);
  EXPECT_FALSE(execute(k, other.tensors(), Options{}));
}

TEST(Loader, RefusesWhatIsNotAKernelLibraryNamingTheFile) {
  const TempDir dir("gdr-loader-test");
  const std::string text = dir.path("not-a-library.so");
  std::ofstream(text) << "not an ELF file";
  // A FIFO (reading it would wait for a writer) and a sparse file of more
  // than 1 GiB (it would be read whole).
  const std::string fifo = dir.path("fifo.so"), huge = dir.path("huge.so");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream{huge};
  ASSERT_EQ(truncate(huge.c_str(), (off_t{1} << 30) + 1), 0);
  struct Case {
    std::string path, symbol, expect;
  };
  for (const Case& c : {Case{"", kSymbol, "empty"},
                        Case{dir.path("missing.so"), kSymbol, "missing.so"},
                        Case{text, kSymbol, "not-a-library.so"},
                        Case{fifo, kSymbol, "fifo.so: not a regular file"},
                        Case{dir.path(""), kSymbol, "not a regular file"},
                        Case{huge, kSymbol, "huge.so: 1073741825 bytes, more than any kernel library"},
                        Case{kLibrary, "gdr_no_such_kernel", "no kernel 'gdr_no_such_kernel'"}}) {
    // Sentinels: a refused load must leave every field as it was.
    Kernel k;
    k.name = "sentinel";
    k.fn = sentinel_kernel;
    k.K = 7;
    k.V = 9;
    k.column_align = 3;
    const Status s = load_kernel(c.path, c.symbol, &k);
    ASSERT_FALSE(s) << c.path;
    EXPECT_NE(s.message().find(c.expect), std::string::npos) << s.message();
    EXPECT_EQ(k.name, "sentinel") << c.path;
    EXPECT_EQ(k.fn, &sentinel_kernel) << c.path;
    EXPECT_EQ(k.K, 7) << c.path;
    EXPECT_EQ(k.V, 9) << c.path;
    EXPECT_EQ(k.column_align, 3) << c.path;
    EXPECT_FALSE(k.scratch_floats) << c.path;
  }
}

TEST(Loader, ASymbolTableClaimingMoreThanTheFileIsReadToTheFilesEnd) {
  // The library's .dynsym section header claims 2^40 bytes: the loader reads
  // the symbols the file holds, finds the kernel and loads it, at once (the
  // loop over the claimed symbols ran for minutes before).
  std::ifstream in(kLibrary, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Elf64_Ehdr eh;
  ASSERT_GE(bytes.size(), sizeof eh);
  std::memcpy(&eh, bytes.data(), sizeof eh);
  bool patched = false;
  for (int i = 0; i < eh.e_shnum; ++i) {
    const size_t at = eh.e_shoff + i * sizeof(Elf64_Shdr);
    ASSERT_LE(at + sizeof(Elf64_Shdr), bytes.size());
    Elf64_Shdr sh;
    std::memcpy(&sh, bytes.data() + at, sizeof sh);
    if (sh.sh_type != SHT_DYNSYM) continue;
    sh.sh_size = uint64_t{1} << 40;
    std::memcpy(bytes.data() + at, &sh, sizeof sh);
    patched = true;
  }
  ASSERT_TRUE(patched) << kLibrary << " has no .dynsym";
  const TempDir dir("gdr-loader-test");
  const std::string damaged = dir.path("damaged.so");
  std::ofstream(damaged, std::ios::binary) << bytes;

  const auto start = std::chrono::steady_clock::now();
  Kernel k;
  const Status s = load_kernel(damaged, kSymbol, &k);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(k.K, 40);
  EXPECT_LT(seconds, 5.0);
}

void copy_file(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream(to, std::ios::binary | std::ios::trunc) << in.rdbuf();
}

// dlopen loads the file the loader checked or nothing: a library put at the
// path after the check (renamed over it, as a build does, or written into it,
// as `cp` does) is refused, and its constructor never runs.
TEST(Loader, LoadsOnlyTheFileItChecked) {
  const TempDir dir("gdr-loader-test");
  const std::string path = dir.path("kernel.so"), staged = dir.path("staged.so");
  for (bool renamed : {true, false}) {
    copy_file(kLibrary, path);
    struct stat checked;
    ASSERT_EQ(stat(path.c_str(), &checked), 0);
    if (renamed) {
      copy_file(GDR_TEST_FOREIGN_LIBRARY, staged);
      ASSERT_EQ(std::rename(staged.c_str(), path.c_str()), 0);
    } else {
      copy_file(GDR_TEST_FOREIGN_LIBRARY, path);
    }
    std::string why;
    EXPECT_EQ(dlopen_checked_file(checked, path, &why), nullptr) << (renamed ? "renamed" : "written");
    EXPECT_EQ(why, "it changed on disk while it was being checked (load it again)");
    EXPECT_EQ(std::getenv("GDR_FAKE_KERNEL_LOADED"), nullptr) << (renamed ? "renamed" : "written");
  }
  // The file as it was checked loads.
  copy_file(kLibrary, path);
  struct stat checked;
  ASSERT_EQ(stat(path.c_str(), &checked), 0);
  std::string why;
  void* library = dlopen_checked_file(checked, path, &why);
  ASSERT_NE(library, nullptr) << why;
  EXPECT_NE(dlsym(library, kSymbol.c_str()), nullptr);
}

// dlopen hands back the library it loaded before from a path, whatever file
// is there now. A new file at a path load_kernel loaded (even the same
// bytes: another build may differ only in its code) is refused; so is one
// at a path the program dlopened itself whose table differs (here K = 48):
// never the old code run with the new file's facts.
TEST(Loader, RefusesANewFileAtAPathItLoadedBefore) {
  const TempDir dir("gdr-loader-test");
  const std::string path = dir.path("kernel.so"), staged = dir.path("staged.so");
  copy_file(kLibrary, path);
  Kernel first;
  const Status loaded = load_kernel(path, kSymbol, &first);
  ASSERT_TRUE(loaded) << loaded.message();
  EXPECT_EQ(first.K, 40);
  copy_file(kLibrary, staged);
  ASSERT_EQ(std::rename(staged.c_str(), path.c_str()), 0);
  Kernel second;
  second.name = "sentinel";
  Status s = load_kernel(path, kSymbol, &second);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.message(), "cannot load kernel library " + path + ": " + kStaleLibrary);
  EXPECT_EQ(second.name, "sentinel");

  // The table patched to K = 48 (its bytes occur once in the file).
  const std::string info = kSymbol + "_info";
  LibraryFacts facts;
  ASSERT_TRUE(read_library_facts(kLibrary, {info}, &facts));
  std::ifstream in(kLibrary, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = bytes.find(facts.symbols.at(info));
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(bytes.find(facts.symbols.at(info), at + 1), std::string::npos);
  const int64_t K = 48;
  std::memcpy(&bytes[at + GDR_INFO_K * sizeof(int64_t)], &K, sizeof K);
  const std::string opened = dir.path("opened.so");
  copy_file(kLibrary, opened);
  ASSERT_NE(dlopen(opened.c_str(), RTLD_NOW | RTLD_LOCAL), nullptr);
  std::ofstream(staged, std::ios::binary) << bytes;
  ASSERT_EQ(std::rename(staged.c_str(), opened.c_str()), 0);
  s = load_kernel(opened, kSymbol, &second);
  ASSERT_FALSE(s) << "loaded K = " << second.K;
  EXPECT_EQ(s.message(), "cannot load kernel library " + opened + ": " + kStaleLibrary);
  EXPECT_EQ(second.name, "sentinel");
  // From another path it loads, with its own facts.
  const std::string other = dir.path("rebuilt.so");
  ASSERT_EQ(std::rename(opened.c_str(), other.c_str()), 0);
  const Status again = load_kernel(other, kSymbol, &second);
  ASSERT_TRUE(again) << again.message();
  EXPECT_EQ(second.K, 48);
}

std::vector<std::string> chunked_libraries() {
  std::vector<std::string> paths;
  std::string list = GDR_TEST_CHUNKED_LIBRARIES;
  for (size_t at = 0; at <= list.size();) {
    const size_t end = std::min(list.find(':', at), list.size());
    paths.push_back(list.substr(at, end - at));
    at = end + 1;
  }
  return paths;
}

// Chunked libraries load too, each with the Halide runtime inside it: two in
// one process, run alternately and from two threads, stay within the
// contract.
TEST(Loader, RunsTwoChunkedLibrariesInOneProcess) {
  const std::vector<std::string> paths = chunked_libraries();
  ASSERT_EQ(paths.size(), 2u);
  const std::string symbols[] = {"gdr_chunked_f32_k24_v40__c16_w8", "gdr_chunked_f32_k16_v32__c32_w8"};
  Kernel kernels[2];
  for (int i = 0; i < 2; ++i) {
    const Status s = load_kernel(paths[i], symbols[i], &kernels[i]);
    ASSERT_TRUE(s) << s.message();
    EXPECT_EQ(kernels[i].name, symbols[i]);
    ASSERT_TRUE(kernels[i].scratch_floats);
  }
  EXPECT_EQ(kernels[0].K, 24);
  EXPECT_EQ(kernels[0].V, 40);
  EXPECT_EQ(kernels[1].K, 16);
  EXPECT_EQ(kernels[1].V, 32);
  EXPECT_EQ(kernels[0].scratch_floats(100, 24, 40), 24 * 40);
  Options o;
  o.threads = 2;
  for (int64_t T : {1, 16, 33, 70})
    for (int i : {0, 1, 0}) {
      const Kernel& k = kernels[i];
      Problem p = make_problem(2, 3, T, k.K, k.V, {DecayRegime::Uniform, BetaRegime::Uniform, true, 5});
      expect_within_contract(p, o, k.name + " T=" + std::to_string(T),
                             [&](const Tensors& t, const Options& opt) { return execute(k, t, opt); });
    }
}

// Refused before dlopen runs any of the library (the fake libraries'
// constructor marks the process): another architecture, a CPU feature this
// CPU lacks, one the runtime cannot check or a features string with no
// bytes in the file, a library that is not a kernel
// of gdr's (no entry point, no table, a short table) or one for an older
// kernel ABI; each message names the file and what is wrong, and the kernel
// is left as it was. (dlopen ran the constructors of all but the first
// three before their symbols were looked for.)
TEST(Loader, RefusesWhatIsNotAKernelForThisMachineBeforeRunningAnyOfIt) {
  struct Case {
    std::string path, symbol, expect;
  };
  const Case cases[] = {
      {GDR_TEST_AARCH64_LIBRARY, "gdr_recurrent_f32_k16_v16__w4_vt16_u1_p2",
       std::string(GDR_TEST_AARCH64_LIBRARY) + ": built for aarch64, this program runs on x86-64"},
      {GDR_TEST_LACKING_LIBRARY, "gdr_fake_kernel",
       std::string(GDR_TEST_LACKING_LIBRARY) + ": kernel 'gdr_fake_kernel' needs the CPU feature " +
           GDR_TEST_LACKING_FEATURE + ", which this CPU lacks"},
      {GDR_TEST_UNKNOWN_LIBRARY, "gdr_fake_kernel",
       std::string(GDR_TEST_UNKNOWN_LIBRARY) +
           ": kernel 'gdr_fake_kernel' needs the CPU feature amx-tile, which this runtime cannot check"},
      {GDR_TEST_FOREIGN_LIBRARY, "gdr_fake_kernel",
       std::string(GDR_TEST_FOREIGN_LIBRARY) + ": no kernel 'gdr_fake_kernel'"},
      {GDR_TEST_NO_INFO_LIBRARY, "gdr_fake_kernel",
       std::string(GDR_TEST_NO_INFO_LIBRARY) + ": kernel 'gdr_fake_kernel' has no gdr_fake_kernel_info"},
      {GDR_TEST_SHORT_INFO_LIBRARY, "gdr_fake_kernel",
       std::string(GDR_TEST_SHORT_INFO_LIBRARY) + ": gdr_fake_kernel_info is 24 bytes, not the 72 of a gdr kernel's table"},
      {GDR_TEST_OLD_ABI_LIBRARY, "gdr_fake_kernel",
       std::string(GDR_TEST_OLD_ABI_LIBRARY) + ": kernel 'gdr_fake_kernel' was built for kernel ABI version 2"},
      {GDR_TEST_BSS_FEATURES_LIBRARY, "gdr_fake_kernel",
       std::string(GDR_TEST_BSS_FEATURES_LIBRARY) +
           ": kernel 'gdr_fake_kernel' has a gdr_fake_kernel_cpu_features with no bytes in the file: its CPU "
           "features cannot be checked"},
  };
  for (const Case& c : cases) {
    Kernel k;
    k.name = "sentinel";
    const Status s = load_kernel(c.path, c.symbol, &k);
    ASSERT_FALSE(s) << c.path;
    EXPECT_EQ(s.message().rfind(c.expect, 0), 0u) << s.message();
    EXPECT_EQ(k.name, "sentinel");
    EXPECT_EQ(std::getenv("GDR_FAKE_KERNEL_LOADED"), nullptr) << c.path << " was loaded before it was refused";
  }
}

}  // namespace
}  // namespace gdr::test
