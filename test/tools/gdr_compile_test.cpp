// gdr-compile's outputs: checked before compiling, written together or not
// at all, one clear line for each bad path or target, nothing left behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "temp_dir.h"
#include "wait_for_child.h"

namespace gdr::test {
namespace {

namespace fs = std::filesystem;

struct Result {
  int exit_code;
  std::string err;
};

class GdrCompileTest : public ::testing::Test {
 protected:
  // gdr-compile run in the test's folder, its stderr kept outside it.
  Result compile(const std::string& args) const {
    const std::string cmd = "cd " + folder_ + " && timeout 300 " + GDR_COMPILE_PATH + " " + args +
                            " > /dev/null 2> " + err_.path("stderr.txt");
    const int status = std::system(cmd.c_str());
    std::ifstream in(err_.path("stderr.txt"));
    std::stringstream text;
    text << in.rdbuf();
    return {WEXITSTATUS(status), text.str()};
  }

  // The folder's entries ("name/" for folders), sorted.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(folder_))
      names.push_back(fs::relative(e.path(), folder_).string() + (e.is_directory() ? "/" : ""));
    std::sort(names.begin(), names.end());
    return names;
  }

  std::string text_of(const std::string& name) const {
    std::ifstream in(folder_ + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  const TempDir temp_{"gdr-compile-test"}, err_{"gdr-compile-test-err"};
  const std::string folder_ = temp_.str();
};

constexpr char kRecurrent[] = "--route recurrent --K 8 --V 16 ";
constexpr char kChunked[] = "--route chunked --K 8 --V 16 ";

TEST_F(GdrCompileTest, BadOutputsAreRefusedBeforeCompilingAndLeaveNothing) {
  struct Case {
    const char* name;
    std::vector<std::string> folders;  // made before the run, expected to stay as they are
    std::string args;
    std::string message;
  };
  const Case cases[] = {
      {"object is a folder", {"c.o"}, std::string(kRecurrent) + "--out c", "--out c.o: is a folder"},
      {"header is a folder", {"c.h"}, std::string(kRecurrent) + "--out c", "--out c.h: is a folder"},
      {"chunked header is a folder", {"b.h"}, std::string(kChunked) + "--out b", "--out b.h: is a folder"},
      {"library is a folder", {"a.so"}, std::string(kRecurrent) + "--out a --shared 1",
       "--out a.so: is a folder"},
      {"empty prefix", {}, std::string(kRecurrent) + "--out ''", "--out: needs a value, got ''"},
      {"prefix is a folder", {"dir"}, std::string(kChunked) + "--out dir/", "--out dir/: names a folder"},
      {"missing folder", {}, std::string(kChunked) + "--out nofolder/x",
       "--out nofolder/x.o: its folder nofolder does not exist"},
      {"missing folder, runtime", {}, "--runtime nofolder/rt.o",
       "--runtime nofolder/rt.o: its folder nofolder does not exist"},
      {"unknown CPU", {}, std::string(kRecurrent) + "--out n --cpu notacpu",
       "--cpu: unknown CPU 'notacpu' for "},
      // Names the header could not declare (it was written, and did not compile).
      {"name not an identifier", {}, std::string(kRecurrent) + "--out n --name 9a", "--name: '9a' is not a C identifier"},
      {"name a keyword", {}, std::string(kChunked) + "--out n --name int", "--name: 'int' is a C or C++ keyword"},
      {"name reserved", {}, std::string(kRecurrent) + "--out n --name _Kernel",
       "--name: '_Kernel' is reserved to the implementation"},
      {"name of the ABI", {}, std::string(kRecurrent) + "--out n --name gdr_kernel_args",
       "--name: 'gdr_kernel_args' is a name of gdr's kernel ABI"},
  };
  for (const Case& c : cases) {
    fs::remove_all(folder_);
    fs::create_directory(folder_);
    for (const std::string& f : c.folders) fs::create_directory(folder_ + "/" + f);
    const std::vector<std::string> before = listing();
    const Result r = compile(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.name;  // usage: refused before compiling
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
    EXPECT_EQ(r.err.rfind("gdr-compile: ", 0), 0u) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    EXPECT_EQ(listing(), before) << c.name;
  }
}

// Success writes exactly the outputs asked for, under their own names: no
// temporary or scratch file left, the chunked header gdr's own (its include
// guard named after the kernel, no Halide header, no staging name), the
// library's soname its file name.
TEST_F(GdrCompileTest, OutputsAppearTogetherUnderTheirNames) {
  Result r = compile(std::string(kRecurrent) + "--out a --shared 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = compile(std::string(kChunked) + "--out b --asm 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listing(), (std::vector<std::string>{"a.h", "a.o", "a.so", "b.h", "b.o", "b.s"}));
  const std::string header = text_of("b.h");
  EXPECT_NE(header.find("#ifndef GDR_KERNEL_GDR_CHUNKED_F32_K8_V16__C16_W"), std::string::npos) << header.substr(0, 200);
  EXPECT_EQ(header.find("tmp"), std::string::npos);
  EXPECT_EQ(header.find("Halide"), header.find("(Halide ") + 1) << "only the target names Halide";
  EXPECT_EQ(header.find("#include \"Halide"), std::string::npos);
  const std::string so = text_of("a.so");
  EXPECT_NE(so.find("a.so"), std::string::npos);
  EXPECT_EQ(so.find(".tmp."), std::string::npos) << "the soname is the staging name";

  // A second run replaces them whole, each keeping the permissions of the
  // file it replaces, also those the linker writes itself (found by a
  // review: the object, library and archive came back 0644 / 0755).
  for (const char* name : {"a.h", "a.o", "a.so"}) fs::permissions(folder_ + "/" + name, fs::perms(0600));
  r = compile(std::string(kRecurrent) + "--out a --shared 1 --archive 1 --v-tile 16");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listing(), (std::vector<std::string>{"a.a", "a.h", "a.o", "a.so", "b.h", "b.o", "b.s"}));
  EXPECT_NE(text_of("a.h").find("vt16"), std::string::npos);
  for (const char* name : {"a.h", "a.o", "a.so"})
    EXPECT_EQ(fs::status(folder_ + "/" + name).permissions(), fs::perms(0600)) << name;
}

// --emit stops at each stage of the same kernel: the gdr module, the
// optimised LLVM IR, the assembly (x86 FMAs, or NEON's fmla for aarch64), or
// the object and header; each writes its one file.
TEST_F(GdrCompileTest, EmitStopsAtEachStage) {
  const std::string name = "gdr_recurrent_f32_k8_v16__w4_vt16_u1_p2";
  const std::string target = "--triple aarch64-linux-gnu --cpu neoverse-n1 ";
  struct Case {
    std::string emit, file, must_contain;
  };
  const Case cases[] = {
      {"mlir", "k.mlir", "gdr.kernel"},
      {"llvm", "k.ll", "define i32 @" + name + "("},
      {"asm", "k.s", "fmla"},
      {"obj", "k.o", "\x7f" "ELF"},
  };
  for (const Case& c : cases) {
    fs::remove_all(folder_);
    fs::create_directory(folder_);
    const Result r = compile(std::string(kRecurrent) + target + "--out k --emit " + c.emit);
    ASSERT_EQ(r.exit_code, 0) << c.emit << ": " << r.err;
    const std::vector<std::string> expected =
        c.emit == "obj" ? std::vector<std::string>{"k.h", "k.o"} : std::vector<std::string>{c.file};
    EXPECT_EQ(listing(), expected) << c.emit;
    EXPECT_NE(text_of(c.file).find(c.must_contain), std::string::npos) << c.emit;
  }
  const Result bad = compile(std::string(kRecurrent) + "--out k --emit exe");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--emit: expected mlir, llvm, asm or obj, got 'exe'"), std::string::npos) << bad.err;
}

// A schedule the verifier refuses is refused at every stage, the gdr module
// (--emit mlir) too: exit 2 (a bad flag, before any work), nothing written.
TEST_F(GdrCompileTest, EveryEmitVerifiesTheModule) {
  for (const char* emit : {"mlir", "llvm", "asm", "obj"}) {
    const Result r = compile(std::string(kRecurrent) + "--unroll 999 --out m --emit " + emit);
    EXPECT_EQ(r.exit_code, 2) << emit;
    EXPECT_NE(r.err.find("'unroll' must be from 1 to 16, got 999"), std::string::npos) << emit << ": " << r.err;
    EXPECT_EQ(listing(), std::vector<std::string>{}) << emit;
  }
}

// A --cpu brings its own features and vector width, never the host's: a
// Haswell or x86-64-v3 object has no 512-bit registers whatever this
// machine has, x86-64-v4 does, and an aarch64 CPU gets NEON's 4 floats and an
// AArch64 object. The header's constants come from each object's own table.
TEST_F(GdrCompileTest, ACpuImpliesItsOwnFeaturesAndVectors) {
  struct Case {
    std::string flags, name;
    bool zmm;
    uint16_t elf_machine;  // EM_X86_64 62, EM_AARCH64 183
  };
  const Case cases[] = {
      // 16 vector registers below AVX-512: AVX2's pairs of 2 vectors, rows
      // unrolled by 2 at K <= 64; one token per sweep (_t1) on SSE.
      {"--cpu haswell", "gdr_recurrent_f32_k8_v16__w8_vt16_u2_p2", false, 62},
      {"--cpu x86-64-v3", "gdr_recurrent_f32_k8_v16__w8_vt16_u2_p2", false, 62},
      {"--cpu x86-64-v2", "gdr_recurrent_f32_k8_v16__w4_vt16_u1_p2_t1", false, 62},
      // AVX-512: pairs of 4 vectors on Intel's cores, 2 on a generic CPU
      // (and AMD's: LLVM 14 knows no AVX-512 Zen).
      {"--cpu x86-64-v4", "gdr_recurrent_f32_k8_v16__w16_vt32_u1_p2", true, 62},
      {"--cpu sapphirerapids", "gdr_recurrent_f32_k8_v16__w16_vt64_u1_p2", true, 62},
      {"--triple aarch64-linux-gnu --cpu cortex-a76", "gdr_recurrent_f32_k8_v16__w4_vt16_u1_p2", false, 183},
      {"--triple aarch64-linux-gnu", "gdr_recurrent_f32_k8_v16__w4_vt16_u1_p2", false, 183},
      // Readouts fit the default: one token per sweep on 16 registers, and
      // a tile whose accumulators fit (8 readouts on 4 vectors needed 36).
      {"--cpu haswell --readouts 2", "gdr_recurrent_f32_k8_v16_r2__w8_vt16_u1_p2_t1", false, 62},
      {"--cpu sapphirerapids --readouts 8", "gdr_recurrent_f32_k8_v16_r8__w16_vt16_u1_p2", true, 62},
  };
  for (const Case& c : cases) {
    fs::remove_all(folder_);
    fs::create_directory(folder_);
    const Result r = compile(std::string(kRecurrent) + "--out k " + c.flags);
    ASSERT_EQ(r.exit_code, 0) << c.flags << ": " << r.err;
    EXPECT_EQ(r.err, "") << c.flags;
    const std::string object = text_of("k.o");
    ASSERT_GT(object.size(), 20u);
    uint16_t machine = 0;
    std::memcpy(&machine, object.data() + 18, 2);
    EXPECT_EQ(machine, c.elf_machine) << c.flags;
    EXPECT_NE(text_of("k.h").find(c.name + "(const gdr_kernel_args* args)"), std::string::npos) << c.flags;
    const std::string listing = folder_ + "/k.s";
    ASSERT_EQ(std::system(("/usr/lib/llvm-14/bin/llvm-objdump -d " + folder_ + "/k.o > " + listing).c_str()), 0);
    EXPECT_EQ(text_of("k.s").find("zmm") != std::string::npos, c.zmm) << c.flags;
  }
  const Result bad = compile(std::string(kRecurrent) + "--out k --triple aarch64-linux-gnu --cpu haswell");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--cpu: unknown CPU 'haswell' for aarch64-linux-gnu"), std::string::npos) << bad.err;
}

// The chunked route stops at the stages Halide has: the pipeline's LLVM IR
// or assembly (`<name>_halide`), or the object (with the entry point) and
// header; it has no gdr module. Built for
// --target aarch64 (Halide's arm-64-linux, NEON: 4 floats by default).
TEST_F(GdrCompileTest, ChunkedEmitStopsAtEachStage) {
  const std::string name = "gdr_chunked_f32_k8_v16__c16_w4";
  struct Case {
    std::string emit, file, must_contain;
  };
  const Case cases[] = {
      {"llvm", "k.ll", "define i32 @" + name + "_halide("},  // the pipeline, no entry point yet
      {"asm", "k.s", "fmla"},
      {"obj", "k.o", "\x7f" "ELF"},
  };
  for (const Case& c : cases) {
    fs::remove_all(folder_);
    fs::create_directory(folder_);
    const Result r = compile(std::string(kChunked) + "--target aarch64 --out k --emit " + c.emit);
    ASSERT_EQ(r.exit_code, 0) << c.emit << ": " << r.err;
    const std::vector<std::string> expected =
        c.emit == "obj" ? std::vector<std::string>{"k.h", "k.o"} : std::vector<std::string>{c.file};
    EXPECT_EQ(listing(), expected) << c.emit;
    EXPECT_NE(text_of(c.file).find(c.must_contain), std::string::npos) << c.emit;
  }
  uint16_t machine = 0;
  std::memcpy(&machine, text_of("k.o").data() + 18, 2);
  EXPECT_EQ(machine, 183) << "EM_AARCH64";
  fs::remove_all(folder_);
  fs::create_directory(folder_);
  const Result mlir = compile(std::string(kChunked) + "--target aarch64 --out k --emit mlir");
  EXPECT_EQ(mlir.exit_code, 2);
  EXPECT_NE(mlir.err.find("--emit mlir: the chunked route is a Halide pipeline and has no gdr module"),
            std::string::npos) << mlir.err;
  EXPECT_EQ(listing(), std::vector<std::string>{});
}

// Vectors wider than the target's are refused before compiling, on both
// routes: NEON has 4 floats, x86-64-v3 8.
TEST_F(GdrCompileTest, VectorsWiderThanTheTargetsAreRefused) {
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {std::string(kChunked) + "--target aarch64 --schedule c16-w8 --out k",
       "--schedule: c16-w8 needs 256-bit vectors, the target (aarch64-linux-gnu, generic) has 128"},
      {std::string(kChunked) + "--target x86-64-v3 --schedule c16-w16 --out k",
       "--schedule: c16-w16 needs 512-bit vectors, the target (x86_64-pc-linux-gnu, x86-64-v3) has 256"},
      {std::string(kRecurrent) + "--target aarch64 --vector-bits 512 --out k", "--vector-bits"},
      {std::string(kRecurrent) + "--target neoverse-n1 --cpu cortex-a76 --out k",
       "--cpu: --target neoverse-n1 already names the CPU"},
      {std::string(kRecurrent) + "--target bogus --out k", "--target: unknown target 'bogus'"},
  };
  for (const Case& c : cases) {
    const Result r = compile(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << ": " << r.err;
    EXPECT_EQ(listing(), std::vector<std::string>{}) << c.args;
  }
  // The recurrent route's verifier refuses a schedule wider than the target
  // (exit 2, as the chunked route's refusal is), named by the flag that
  // set the knob (the message began with the verifier's words).
  Result r = compile(std::string(kRecurrent) + "--target aarch64 --vector-width 8 --v-tile 32 --out k");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("gdr-compile: --vector-width: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("needs 256-bit vectors but target 'generic' has 128"), std::string::npos) << r.err;
  r = compile(std::string(kRecurrent) + "--target aarch64 --schedule w8-vt32-u1-p2 --out k");
  EXPECT_EQ(r.err.rfind("gdr-compile: --schedule: ", 0), 0u) << r.err;
  r = compile("--route recurrent --K 2048 --V 8 --out k");
  EXPECT_EQ(r.err.rfind("gdr-compile: --K: ", 0), 0u) << r.err;
  EXPECT_EQ(listing(), std::vector<std::string>{});
}

// The kernel's form (--decay, --readouts) is part of its name, its header
// and its info table, on both routes; a form no route builds is refused.
TEST_F(GdrCompileTest, TheFormIsAFactOfTheKernel) {
  Result r = compile(std::string(kRecurrent) + "--decay scalar --readouts 2 --out k");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string header = text_of("k.h");
  const std::string name = "gdr_recurrent_f32_k8_v16_sd_r2__";
  EXPECT_NE(header.find(name), std::string::npos) << header;
  EXPECT_NE(header.find("_decay_kind = GDR_DECAY_SCALAR"), std::string::npos) << header;
  EXPECT_NE(header.find("_readouts = 2"), std::string::npos) << header;
  EXPECT_NE(header.find("decay=scalar readouts=2"), std::string::npos) << header;
  fs::remove_all(folder_ + "/k.o"), fs::remove_all(folder_ + "/k.h");
  r = compile(std::string(kChunked) + "--decay scalar --readouts 3 --out k");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string chunked_header = text_of("k.h");
  EXPECT_NE(chunked_header.find("_decay_kind = GDR_DECAY_SCALAR"), std::string::npos) << chunked_header;
  EXPECT_NE(chunked_header.find("_readouts = 3"), std::string::npos) << chunked_header;
  EXPECT_NE(chunked_header.find("_sd_r3__"), std::string::npos) << chunked_header;
  fs::remove_all(folder_ + "/k.o"), fs::remove_all(folder_ + "/k.h");
  // Both routes read out at most 8 queries per state head: a usage error
  // naming the flag, as its help says.
  for (const char* route : {kChunked, kRecurrent}) {
    r = compile(std::string(route) + "--readouts 9 --out k");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err, "gdr-compile: --readouts: expected an integer in [1, 8], got '9'\n") << r.err;
    EXPECT_EQ(listing(), std::vector<std::string>{});
  }
  for (const auto& [args, message] :
       {std::pair<std::string, std::string>{std::string(kRecurrent) + "--decay diagonal --out k",
                                            "--decay: expected channel or scalar, got 'diagonal'"},
        {std::string(kRecurrent) + "--readouts 0 --out k", "--readouts"}}) {
    r = compile(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(listing(), std::vector<std::string>{}) << args;
  }
}

// The named levels and a CPU alone give each route that CPU's vectors: no
// 512-bit registers for x86-64-v3 or --cpu haswell, whatever this machine
// has, and some for x86-64-v4.
TEST_F(GdrCompileTest, ChunkedTargetsGetTheirOwnVectors) {
  struct Case {
    std::string flags;
    bool zmm;
  };
  for (const Case& c : {Case{"--target x86-64-v3", false}, Case{"--cpu haswell", false},
                        Case{"--target x86-64-v4", true}}) {
    fs::remove_all(folder_);
    fs::create_directory(folder_);
    const Result r = compile(std::string(kChunked) + c.flags + " --out k");
    ASSERT_EQ(r.exit_code, 0) << c.flags << ": " << r.err;
    ASSERT_EQ(std::system(("/usr/lib/llvm-14/bin/llvm-objdump -d " + folder_ + "/k.o > " + folder_ + "/k.s").c_str()), 0);
    const std::string listing = text_of("k.s");
    EXPECT_EQ(listing.find("zmm") != std::string::npos, c.zmm) << c.flags;
    EXPECT_NE(listing.find("ymm"), std::string::npos) << c.flags;
  }
}

// One header format for both routes: plain C (C99, every warning an error)
// and C++17 with the gdr::Kernel helper, needing only the runtime's headers
// (no Halide or compiler include folder is given).
TEST_F(GdrCompileTest, TheHeaderOfEitherRouteIsCAndCpp) {
  const std::string include = std::string("-I") + GDR_RUNTIME_INCLUDE_DIR;
  for (const std::string& route : {std::string(kRecurrent), std::string(kChunked)}) {
    fs::remove_all(folder_);
    fs::create_directory(folder_);
    const Result r = compile(route + "--target aarch64 --out k");
    ASSERT_EQ(r.exit_code, 0) << route << ": " << r.err;
    const std::string header = text_of("k.h");
    for (const char* needed : {"int32_t gdr_", "_info[GDR_KERNEL_INFO_FIELDS]", "_K = 8,", "_V = 16,",
                               "_column_align = ", "_scratch_floats = ", "_vector_bits = 128",
                               "_target \"aarch64-linux-gnu generic", "_required_cpu_features \"asimd\"",
                               "_kernel(gdr::Kernel* kernel)", "gdr::kernel_from_info("})
      EXPECT_NE(header.find(needed), std::string::npos) << route << needed << "\n" << header;
    const std::string c = std::string(GDR_C_COMPILER) + " -std=c99 -Wall -Wextra -Werror -fsyntax-only " +
                          include + " -I" + folder_ + " -x c " + folder_ + "/k.h";
    EXPECT_EQ(std::system(c.c_str()), 0) << c;
    const std::string cpp = std::string(GDR_CXX_COMPILER) + " -std=c++17 -Wall -Wextra -Werror -fsyntax-only " +
                            include + " -x c++ " + folder_ + "/k.h";
    EXPECT_EQ(std::system(cpp.c_str()), 0) << cpp;
    // A chunked kernel's gdr::Kernel says the Halide bridge's messages (as
    // gdr::load_kernel's does; it said only "failed with code 3").
    EXPECT_EQ(header.find("kernel->error_message = &gdr_halide_chunked_error;") != std::string::npos,
              route == kChunked) << header;
    // Against the runtime headers of another kernel ABI the header does not
    // compile (it did, silently, whatever the struct's layout).
    fs::create_directories(folder_ + "/other_abi/gdr");
    // (Version N becomes N9.)
    const std::string other_abi_headers = "sed 's/#define GDR_KERNEL_ABI_VERSION \\([0-9]*\\)/#define "
                                          "GDR_KERNEL_ABI_VERSION \\19/' " +
                             std::string(GDR_RUNTIME_INCLUDE_DIR) + "/gdr/kernel_abi.h > " + folder_ +
                             "/other_abi/gdr/kernel_abi.h";
    ASSERT_EQ(std::system(other_abi_headers.c_str()), 0);
    const std::string other = std::string(GDR_C_COMPILER) + " -std=c99 -fsyntax-only -I" + folder_ + "/other_abi " +
                              include + " -x c " + folder_ + "/k.h 2> " + folder_ + "/other_abi.txt";
    EXPECT_NE(std::system(other.c_str()), 0) << other;
    EXPECT_NE(text_of("other_abi.txt").find(": compile it with the runtime headers of that ABI"),
              std::string::npos) << text_of("other_abi.txt");
  }
}

// Libraries of either route: --shared 1 and --archive 1 write PREFIX.so and
// PREFIX.a beside the object and header; a chunked archive holds the kernel,
// its Halide runtime and gdr's Halide bridge. A chunked library for another
// architecture needs that architecture's bridge: refused before compiling
// without it, or with one for the wrong architecture.
TEST_F(GdrCompileTest, LibrariesOfEitherRoute) {
  for (const std::string& route : {std::string(kRecurrent), std::string(kChunked)}) {
    fs::remove_all(folder_);
    fs::create_directory(folder_);
    const Result r = compile(route + "--out k --shared 1 --archive 1");
    ASSERT_EQ(r.exit_code, 0) << route << ": " << r.err;
    EXPECT_EQ(listing(), (std::vector<std::string>{"k.a", "k.h", "k.o", "k.so"})) << route;
    const std::string archive = text_of("k.a");
    EXPECT_EQ(archive.rfind("!<arch>\n", 0), 0u);
    const bool chunked = route == kChunked;
    EXPECT_EQ(archive.find("halide_runtime.o/") != std::string::npos, chunked) << route;
    EXPECT_EQ(archive.find("halide_chunked_abi.cpp.o/") != std::string::npos, chunked) << route;
    EXPECT_NE(archive.find(chunked ? "gdr_chunked_f32_k8_v16__c16_w" : "gdr_recurrent_f32_k8_v16__w"), std::string::npos);
    // The library needs no C++ runtime (a chunked one's bridge did: a
    // program with libstdc++ linked statically could not load it).
    const std::string undefined = "/usr/lib/llvm-14/bin/llvm-nm -D --undefined-only --format=just-symbols " +
                                  folder_ + "/k.so > " + err_.path("undefined.txt");
    ASSERT_EQ(std::system(undefined.c_str()), 0);
    std::ifstream symbols(err_.path("undefined.txt"));
    for (std::string symbol; std::getline(symbols, symbol);)
      for (const char* cpp : {"_Z", "__cxa_", "__gxx_", "_Unwind_"})
        EXPECT_NE(symbol.rfind(cpp, 0), 0u) << route << symbol;
  }
  fs::remove_all(folder_);
  fs::create_directory(folder_);
  Result r = compile(std::string(kChunked) + "--target aarch64 --out k --archive 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--halide-abi: a chunked aarch64 library needs gdr's Halide bridge built for aarch64"),
            std::string::npos) << r.err;
  r = compile(std::string(kChunked) + "--target aarch64 --out k --shared 1 --halide-abi " + GDR_HALIDE_ABI_LIBRARY);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(": built for x86_64, the target is aarch64"), std::string::npos) << r.err;
  // Another library of the right architecture: its .so linked and failed
  // to load (an undefined gdr_halide_chunked_entry).
  r = compile(std::string(kChunked) + "--out k --shared 1 --halide-abi " + GDR_RUNTIME_LIBRARY);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("gdr-compile: --halide-abi ") + GDR_RUNTIME_LIBRARY +
                       ": defines no gdr_halide_chunked_entry (not gdr's Halide bridge, libgdr_halide_abi.a)\n");
  r = compile(std::string(kRecurrent) + "--out k --emit asm --archive 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--archive: needs --emit obj"), std::string::npos) << r.err;
  EXPECT_EQ(listing(), std::vector<std::string>{});
  // The bridge an archive reads is never one of its outputs.
  fs::copy_file(GDR_HALIDE_ABI_LIBRARY, folder_ + "/abi.a");
  const std::string bridge = text_of("abi.a");
  r = compile(std::string(kChunked) + "--out abi --archive 1 --halide-abi abi.a");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "gdr-compile: --out abi.a is the --halide-abi file abi.a (gdr-compile never overwrites an input)\n");
  EXPECT_EQ(text_of("abi.a"), bridge);
  EXPECT_EQ(listing(), std::vector<std::string>{"abi.a"});
}

// Two kernels of one variant under two names link into one program: each
// object defines its name's symbols only (a recurrent kernel under --name
// defined its variant's too, and two such could not be linked together).
TEST_F(GdrCompileTest, TwoNamesOfOneVariantLinkIntoOneProgram) {
  for (const std::string& route : {std::string(kRecurrent), std::string(kChunked)}) {
    fs::remove_all(folder_);
    fs::create_directory(folder_);
    for (const char* name : {"one", "two"}) {
      const Result r = compile(route + "--name " + name + " --out " + name);
      ASSERT_EQ(r.exit_code, 0) << route << ": " << r.err;
    }
    const std::string both = "cd " + folder_ + " && ld.lld-14 -r one.o two.o -o both.o 2> link.txt";
    EXPECT_EQ(std::system(both.c_str()), 0) << route << text_of("link.txt");
    const std::string nm = "/usr/lib/llvm-14/bin/llvm-nm --defined-only --extern-only --format=just-symbols " +
                           folder_ + "/both.o > " + folder_ + "/symbols.txt";
    ASSERT_EQ(std::system(nm.c_str()), 0);
    EXPECT_EQ(text_of("symbols.txt"),
              "one\none_cpu_features\none_info\ntwo\ntwo_cpu_features\ntwo_info\n") << route;
  }
}

// Polls every millisecond, for at most 120 s, until `ready()` or until the
// child ends (*ended: its pid if it ended first, else 0; *status its
// status); true if it was ready while the child ran.
template <class Ready>
bool ready_while_running(pid_t child, const Ready& ready, int* status, pid_t* ended) {
  for (int ms = 0; ms < 120000; ++ms) {
    if (ready()) return true;
    if ((*ended = ::waitpid(child, status, WNOHANG)) != 0) return false;
    ::usleep(1000);
  }
  return false;
}

// Killed while Halide writes its object into a scratch file beside the
// outputs, gdr-compile leaves nothing (found by a review: the scratch file
// stayed; staged outputs were already removed).
TEST_F(GdrCompileTest, ASignalMidCompileLeavesNothing) {
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::chdir(folder_.c_str()) != 0) ::_exit(127);
    ::execl(GDR_COMPILE_PATH, GDR_COMPILE_PATH, "--route", "chunked", "--K", "128", "--V", "128", "--out", "k",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  auto has_scratch = [&] {
    for (const std::string& name : listing())
      if (name.find(".halide.o") != std::string::npos) return true;
    return false;
  };
  int status = 0;
  pid_t ended = 0;
  const bool seen = ready_while_running(child, has_scratch, &status, &ended);
  ASSERT_EQ(ended, 0) << "gdr-compile ended before a scratch file was seen";
  ::kill(child, SIGTERM);
  status = wait_for_child(child, 30);
  ASSERT_NE(status, -1) << "gdr-compile did not end";
  ASSERT_TRUE(seen) << "no scratch file appeared in 120 s";
  // Ended by the signal, unless it had finished first (then its outputs).
  if (WIFSIGNALED(status)) {
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
    EXPECT_EQ(listing(), std::vector<std::string>{});
  } else {
    EXPECT_EQ(listing(), (std::vector<std::string>{"k.h", "k.o"}));
  }
}

// Killed while its linker runs (a fake ld.lld-14 on PATH that would write
// its output after 3 s), gdr-compile ends the linker first, by SIGTERM (not
// the SIGKILL a second later: the linker must be able to clean up after
// itself), so nothing is written after its cleanup (found by reviews:
// ld.lld outlived gdr-compile; then it was started with SIGTERM blocked).
TEST_F(GdrCompileTest, ASignalWhileLinkingEndsTheLinkerToo) {
  const TempDir bin("gdr-compile-test-bin");
  const std::string started = bin.path("started");
  {
    // Python, not sh: dash sets its own signal mask, so it would not show
    // the one the linker was started with.
    std::ofstream script(bin.path("ld.lld-14"));
    script << "#!/usr/bin/python3\n"
              "import os, sys, time\n"
              "blocked = [l.split()[1] for l in open('/proc/self/status') if l.startswith('SigBlk:')][0]\n"
              "with open('" << started << ".tmp', 'w') as f: f.write('%d %s' % (os.getpid(), blocked))\n"
              "os.rename('" << started << ".tmp', '" << started << "')\n"
              "time.sleep(3)\n"
              "open(sys.argv[sys.argv.index('-o') + 1], 'w').write('linked')\n";
  }
  fs::permissions(bin.path("ld.lld-14"), fs::perms(0755));
  const char* user_path = std::getenv("PATH");
  const std::string path = bin.str() + ":" + (user_path ? user_path : "/usr/bin:/bin");
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (::chdir(folder_.c_str()) != 0 || ::setenv("PATH", path.c_str(), 1) != 0) ::_exit(127);
    ::execl(GDR_COMPILE_PATH, GDR_COMPILE_PATH, "--route", "recurrent", "--K", "8", "--V", "16", "--out", "k",
            "--shared", "1", static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  pid_t ended = 0;
  ready_while_running(child, [&] { return fs::exists(started); }, &status, &ended);
  ASSERT_EQ(ended, 0) << "gdr-compile ended before its linker started";
  pid_t linker = 0;
  std::string blocked;
  std::ifstream(started) >> linker >> blocked;
  ASSERT_GT(linker, 0);
  EXPECT_EQ(std::stoull(blocked, nullptr, 16) & (1ull << (SIGTERM - 1)), 0u) << "the linker started with SIGTERM blocked";
  const auto sent = std::chrono::steady_clock::now();
  ::kill(child, SIGTERM);
  status = wait_for_child(child, 30);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  ASSERT_NE(status, -1) << "gdr-compile did not end";
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_LT(seconds, 0.8) << "the linker took the SIGKILL, not the SIGTERM";
  EXPECT_TRUE(::kill(linker, 0) != 0 && errno == ESRCH) << "the linker outlived gdr-compile";
  EXPECT_EQ(listing(), std::vector<std::string>{});
}

}  // namespace
}  // namespace gdr::test
