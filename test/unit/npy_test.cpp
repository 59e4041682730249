#include "npy.h"

#include <gtest/gtest.h>

#include <cstring>

namespace gdr::npy {
namespace {

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
      {"no shape", header_file("{'descr': '<f4', 'fortran_order': False, }"), "shape"},
      {"negative shape",
       header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", eight),
       "non-integer"},
      {"shape overflow",
       header_file("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }"),
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

TEST(Npy, MissingFileIsAnError) {
  Array a;
  Status s = read("/nonexistent/gdr/x.npy", &a);
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("cannot open"), std::string::npos);
}

}  // namespace
}  // namespace gdr::npy
