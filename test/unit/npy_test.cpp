#include "npy.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "temp_dir.h"

namespace gdr::npy {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

std::string header_file(const std::string& dict, const std::string& data = "") {
  std::string h = dict + "\n";
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + data;
}

TEST(Npy, RoundTrips) {
  for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{{}, {3}, {2, 3}, {1, 2, 0, 4}}) {
    Array a{shape, {}};
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    for (int64_t i = 0; i < n; ++i) a.data.push_back(0.5f * i - 1.f);
    const std::string bytes = serialize(a);
    EXPECT_EQ((bytes.find('\n') + 1) % 64, 0u) << "data must start 64-byte aligned";
    Array b;
    ASSERT_TRUE(parse(bytes, &b)) << parse(bytes, &b).message();
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.data, a.data);
  }
}

// Offsets and indices: '<i4' and '<i8' files read in their own type (what
// numpy writes for np.int32 / np.int64 arrays); a float file, or another
// integer type, is refused saying which dtypes are read; a float reader
// refuses an integer file.
TEST(Npy, IntegerFiles) {
  const gdr::test::TempDir dir("npy-int-test");
  for (bool int32 : {true, false}) {
    IntArray a;
    a.shape = {4};
    a.int32 = int32;
    a.data32 = {0, -1, 7, 2147483647};
    a.data64 = {0, -1, 7, int64_t(1) << 40};
    ASSERT_TRUE(write(dir.path("i.npy"), a));
    IntArray b;
    ASSERT_TRUE(read(dir.path("i.npy"), &b));
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.int32, int32);
    const Indices i = b.indices();
    EXPECT_EQ(i.size, 4);
    EXPECT_EQ(i.type, int32 ? Indices::Type::Int32 : Indices::Type::Int64);
    EXPECT_EQ(i[1], -1);
    EXPECT_EQ(i[3], int32 ? 2147483647 : int64_t(1) << 40);
    Array f;
    EXPECT_NE(read(dir.path("i.npy"), &f).message().find("dtype must be float32"), std::string::npos);
  }
  ASSERT_TRUE(write(dir.path("f.npy"), Array{{2}, {1.f, 2.f}}));
  IntArray b;
  EXPECT_EQ(read(dir.path("f.npy"), &b).message(),
            "dtype must be int32 or int64 little-endian ('<i4' or '<i8'), got '<f4'");
  std::ofstream(dir.path("u.npy"), std::ios::binary)
      << header_file("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", std::string(4, '\0'));
  EXPECT_NE(read(dir.path("u.npy"), &b).message().find("got '<u2'"), std::string::npos);
  std::ofstream(dir.path("t.npy"), std::ios::binary)
      << header_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", std::string(12, '\0'));
  EXPECT_NE(read(dir.path("t.npy"), &b).message().find("needs 16 (truncated)"), std::string::npos);
}

TEST(Npy, ReadsWhatNumpyWrites) {
  // Bytes as numpy 1.x writes np.arange(3, dtype=np.float32).
  std::string data(12, '\0');
  const float values[3] = {0.f, 1.f, 2.f};
  std::memcpy(data.data(), values, 12);
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  dict.append(117 - dict.size(), ' ');
  Array a;
  ASSERT_TRUE(parse(header_file(dict, data), &a));
  EXPECT_EQ(a.shape, std::vector<int64_t>{3});
  EXPECT_EQ(a.data, std::vector<float>({0.f, 1.f, 2.f}));
}

struct Bad {
  const char* name;
  std::string bytes;
  const char* must_mention;
};

TEST(Npy, RejectsMalformedFiles) {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
  const std::string eight(8, '\0');
  std::string huge = "\x93NUMPY";
  huge += '\x02';
  huge += '\x00';
  huge += std::string("\xff\xff\xff\x7f", 4);
  const Bad cases[] = {
      {"empty", "", "bad magic"},
      {"bad magic", "NUMPY....", "bad magic"},
      {"truncated data", header_file(ok_dict, eight.substr(0, 5)), "truncated"},
      {"trailing data", header_file(ok_dict, eight + "xx"), "trailing"},
      {"truncated header", header_file(ok_dict).substr(0, 20), "truncated header"},
      {"float64", header_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", eight),
       "float32"},
      {"big endian", header_file("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", eight),
       "float32"},
      {"fortran order",
       header_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", eight), "Fortran"},
      {"huge header", huge, "too large"},
      {"version 9", std::string("\x93NUMPY\x09\x00\x00\x00", 10), "version"},
      {"version 1.7", std::string("\x93NUMPY\x01\x07", 8) + header_file(ok_dict, eight).substr(8), "version 1.7"},
      {"no shape", header_file("{'descr': '<f4', 'fortran_order': False, }"), "shape"},
      {"negative shape",
       header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", eight),
       "negative or non-integer"},
      {"shape overflow",
       header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"),
       "too large"},
      {"shape overflow after a zero",
       header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4611686018427387904), }"),
       "too large"},
  };
  for (const Bad& c : cases) {
    Array a;
    Status s = parse(c.bytes, &a);
    ASSERT_FALSE(s) << c.name;
    EXPECT_NE(s.message().find(c.must_mention), std::string::npos)
        << c.name << ": '" << s.message() << "'";
  }
}

// numpy reads the header with ast.literal_eval and then checks the keys and
// the shape's type: exactly that grammar is accepted, nothing more.
TEST(Npy, HeaderGrammarIsNumpys) {
  const std::string two(8, '\0');
  const std::string accepted[] = {
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
      "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,), }",
      "{'shape':(2,),'fortran_order':False,'descr':'<f4'}",
      "{ 'descr' : '<f4' ,\n 'fortran_order' :\tFalse , 'shape' : ( 2 , ) , }  ",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 2,)}",
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1_0, 0)}",
  };
  for (const std::string& dict : accepted) {
    Array a;
    const bool ten = dict.find("1_0") != std::string::npos;
    const Status s = parse(header_file(dict, ten ? "" : two), &a);
    EXPECT_TRUE(s) << dict << ": " << s.message();
  }
  const std::pair<std::string, const char*> refused[] = {
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (, 3,2 1, 2)}", "shape"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 1,)}", "malformed"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,,2)}", "non-integer"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", "not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2]}", "'shape' is not a tuple"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,)}", "leading zero"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2_,)}", "malformed"},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", "'fortran_order' is not True or False"},
      {"{'descr': '<f4', 'fortran_order': 'no', 'shape': (2,)}", "'fortran_order' is not True or False"},
      {"{'descr': 4, 'fortran_order': False, 'shape': (2,)}", "'descr' is not a string"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': '(2,)'}", "'shape' is not a tuple"},
      // An unknown key is named as such (its value's type was, garbled).
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 'x'}", "has the key 'extra'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", "has the key 'x'"},
      {"{'descr': '<f4', 'shape': (2,)}", "no fortran_order"},
      {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,)}", "expected ','"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x", "text after the dict"},
      {"{'descr': '<f\\x34', 'fortran_order': False, 'shape': (2,)}", "escape"},
      {"'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", "does not start with '{'"},
      {"{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,)}", "'fortran_order' is not True or False"},
  };
  for (const auto& [dict, must_mention] : refused) {
    Array a;
    const Status s = parse(header_file(dict, two), &a);
    ASSERT_FALSE(s) << dict;
    EXPECT_NE(s.message().find(must_mention), std::string::npos) << dict << ": " << s.message();
  }
}

// A large file is read once, straight into the array: the reading process
// peaks near the file's size, not at a multiple of it (three copies before).
TEST(Npy, LargeFileIsReadIntoItsBufferOnce) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine change the peak";
  const gdr::test::TempDir dir("gdr-npy-test");
  const int64_t n = int64_t(48) << 20;  // 192 MiB of floats
  {
    Array a{{n}, std::vector<float>(n, 1.5f)};
    ASSERT_TRUE(write(dir.path("big.npy"), a));
  }
  const pid_t child = ::fork();
  if (child == 0) {
    Array a;
    const bool ok = read(dir.path("big.npy"), &a) && a.data.size() == static_cast<size_t>(n) &&
                    a.data[n - 1] == 1.5f;
    struct rusage usage;
    ::getrusage(RUSAGE_SELF, &usage);
    // The peak, in MiB, as the exit code (0 when the read failed).
    ::_exit(ok ? static_cast<int>(std::min<long>(usage.ru_maxrss >> 10, 250)) : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  const int peak_mib = WEXITSTATUS(status);
  ASSERT_GT(peak_mib, 0) << "the child could not read the file";
  // The array is 192 MiB; the test process that forked adds its own pages.
  EXPECT_LT(peak_mib, 192 + 40) << "reading a 192 MiB file peaked at " << peak_mib << " MiB";
}

TEST(Npy, MissingFileIsAnError) {
  Array a;
  Status s = read("/nonexistent/gdr/x.npy", &a);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace gdr::npy
