#include "npy.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gdr::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy itself refuses headers over 10000 bytes unless told otherwise.
constexpr uint32_t kMaxHeader = 10000;

// Returns the text after `'key':` with leading spaces skipped, or npos.
size_t value_of(const std::string& header, const std::string& key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return at;
  at = header.find(':', at);
  if (at == std::string::npos) return at;
  return header.find_first_not_of(' ', at + 1);
}

Status parse_shape(const std::string& header, std::vector<int64_t>* shape) {
  size_t at = value_of(header, "shape");
  if (at == std::string::npos || header[at] != '(') return Status::error("header has no shape tuple");
  size_t close = header.find(')', at);
  if (close == std::string::npos) return Status::error("header's shape tuple is not closed");
  std::string body = header.substr(at + 1, close - at - 1);
  shape->clear();
  size_t i = 0;
  while (i < body.size()) {
    while (i < body.size() && (body[i] == ' ' || body[i] == ',')) ++i;
    if (i == body.size()) break;
    if (body[i] < '0' || body[i] > '9') return Status::error("shape has a non-integer entry");
    int64_t d = 0;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') {
      if (__builtin_mul_overflow(d, 10, &d) || __builtin_add_overflow(d, body[i] - '0', &d))
        return Status::error("shape entry overflows");
      ++i;
    }
    if (i < body.size() && body[i] != ',' && body[i] != ' ') return Status::error("shape is malformed");
    shape->push_back(d);
  }
  return Status::ok();
}

}  // namespace

std::string shape_string(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

Status parse(const std::string& bytes, Array* array) {
  if (bytes.size() < kMagicSize + 4 || std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
    return Status::error("not a .npy file (bad magic)");
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  uint32_t header_len = 0;
  size_t header_at = 0;
  if (major == 1) {
    header_len = uint8_t(bytes[8]) | uint32_t(uint8_t(bytes[9])) << 8;
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return Status::error("truncated header");
    for (int i = 3; i >= 0; --i) header_len = header_len << 8 | uint8_t(bytes[8 + i]);
    header_at = 12;
  } else {
    return Status::error("unsupported .npy version " + std::to_string(major));
  }
  if (header_len > kMaxHeader)
    return Status::error("header of " + std::to_string(header_len) + " bytes is too large");
  if (bytes.size() < header_at + header_len) return Status::error("truncated header");
  const std::string header = bytes.substr(header_at, header_len);

  size_t descr = value_of(header, "descr");
  if (descr == std::string::npos) return Status::error("header has no descr");
  if (header.compare(descr, 5, "'<f4'") != 0)
    return Status::error("dtype must be float32 little-endian ('<f4'), got " +
                         header.substr(descr, header.find_first_of(",}", descr) - descr));
  size_t fortran = value_of(header, "fortran_order");
  if (fortran == std::string::npos) return Status::error("header has no fortran_order");
  if (header.compare(fortran, 5, "False") != 0)
    return Status::error("array is in Fortran order; only C order is supported");
  if (Status s = parse_shape(header, &array->shape); !s) return s;

  int64_t count = 1;
  for (int64_t d : array->shape)
    if (__builtin_mul_overflow(count, d, &count) || count > (int64_t(1) << 60) / 4)
      return Status::error("shape " + shape_string(array->shape) + " is too large");
  const size_t data_at = header_at + header_len;
  const size_t want = static_cast<size_t>(count) * sizeof(float);
  if (bytes.size() - data_at != want)
    return Status::error("data is " + std::to_string(bytes.size() - data_at) + " bytes but shape " +
                         shape_string(array->shape) + " needs " + std::to_string(want) +
                         (bytes.size() - data_at < want ? " (truncated)" : " (trailing bytes)"));
  array->data.resize(count);
  if (want) std::memcpy(array->data.data(), bytes.data() + data_at, want);
  return Status::ok();
}

Status read(const std::string& path, Array* array) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error("cannot open: " + std::string(std::strerror(errno)));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) return Status::error("read failed");
  return parse(bytes.str(), array);
}

std::string serialize(const Array& array) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " +
                       shape_string(array.shape) + ", }";
  // Pad so that the data starts on a 64-byte boundary; the header ends in '\n'.
  const size_t unpadded = kMagicSize + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(array.data.data()), array.data.size() * sizeof(float));
  return out;
}

Status write(const std::string& path, const Array& array) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::error("cannot create " + tmp + ": " + std::strerror(errno));
    const std::string bytes = serialize(array);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out.flush()) {
      std::remove(tmp.c_str());
      return Status::error("write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Status::error("cannot rename into place: " + std::string(std::strerror(errno)));
  }
  return Status::ok();
}

}  // namespace gdr::npy
