// gdr-compile's outputs: checked before compiling, written together or not
// at all, one clear line for each bad path or target, nothing left behind.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "temp_dir.h"

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
      {"empty prefix", {}, std::string(kRecurrent) + "--out ''", "--out: the path prefix is empty"},
      {"prefix is a folder", {"dir"}, std::string(kChunked) + "--out dir/", "--out dir/: names a folder"},
      {"missing folder", {}, std::string(kChunked) + "--out nofolder/x",
       "--out nofolder/x.o: its folder nofolder does not exist"},
      {"missing folder, runtime", {}, "--runtime nofolder/rt.o",
       "--runtime nofolder/rt.o: its folder nofolder does not exist"},
      {"unknown CPU", {}, std::string(kRecurrent) + "--out n --cpu notacpu",
       "--cpu: unknown CPU 'notacpu' for "},
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
// temporary left, the chunked header's include guard named after the
// header (not its staging name), the library's soname its file name.
TEST_F(GdrCompileTest, OutputsAppearTogetherUnderTheirNames) {
  Result r = compile(std::string(kRecurrent) + "--out a --shared 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = compile(std::string(kChunked) + "--out b --asm 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listing(), (std::vector<std::string>{"a.h", "a.o", "a.so", "b.h", "b.o", "b.s"}));
  const std::string header = text_of("b.h");
  EXPECT_NE(header.find("#ifndef HALIDE__b_h\n"), std::string::npos) << header.substr(0, 200);
  EXPECT_EQ(header.find("tmp"), std::string::npos);
  const std::string so = text_of("a.so");
  EXPECT_NE(so.find("a.so"), std::string::npos);
  EXPECT_EQ(so.find(".tmp."), std::string::npos) << "the soname is the staging name";

  // A second run replaces them whole.
  r = compile(std::string(kRecurrent) + "--out a --shared 1 --v-tile 16");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(listing(), (std::vector<std::string>{"a.h", "a.o", "a.so", "b.h", "b.o", "b.s"}));
  EXPECT_NE(text_of("a.h").find("vt16"), std::string::npos);
}

}  // namespace
}  // namespace gdr::test
