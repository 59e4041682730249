#include "npy.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>

#include "gdr/support/regular_file.h"
#include "gdr/support/staged_outputs.h"

namespace gdr::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
// numpy itself refuses headers over 10000 bytes unless told otherwise.
constexpr uint32_t kMaxHeader = 10000;

// The header dict as numpy reads it (ast.literal_eval, then its own
// checks): a Python dict literal with exactly the keys 'descr',
// 'fortran_order' and 'shape'; strings in single or double quotes; the
// shape a tuple of non-negative integers ("()", "(3,)", "(2, 3)", a trailing
// comma allowed); whitespace anywhere between tokens. Nothing else.
class HeaderParser {
 public:
  // The dict's three values, each absent until its key is read.
  struct Dict {
    std::optional<std::string> descr;
    std::optional<bool> fortran_order;
    std::optional<std::vector<int64_t>> shape;
  };

  explicit HeaderParser(const std::string& text) : text_(text) {}

  Status parse(Dict* dict) {
    if (!take('{')) return error("does not start with '{'");
    for (bool first = true; !take('}'); first = false) {
      if (!first && !take(',')) return error("expected ',' or '}'");
      if (take('}')) break;  // trailing comma
      std::string key;
      if (Status s = string(&key); !s) return s;
      if (key != "descr" && key != "fortran_order" && key != "shape")
        return error("has the key '" + key + "' (numpy's has only 'descr', 'fortran_order' and 'shape')");
      if (!take(':')) return error("expected ':' after '" + key + "'");
      skip_space();
      if (key == "shape") {
        if (peek() != '(') return error("'shape' is not a tuple");
        if (Status s = int_tuple(&dict->shape.emplace()); !s) return s;
      } else if (key == "descr") {
        if (peek() != '\'' && peek() != '"') return error("'descr' is not a string");
        if (Status s = string(&dict->descr.emplace()); !s) return s;
      } else if (word("True") || word("False")) {
        dict->fortran_order = last_word_ == "True";
      } else {
        return error("'fortran_order' is not True or False");
      }
    }
    skip_space();
    if (at_ != text_.size()) return error("has text after the dict");
    return Status::success();
  }

 private:
  static Status error(const std::string& why) { return Status::error("header " + why); }
  char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }
  void skip_space() {
    while (at_ < text_.size() && std::strchr(" \t\n\r\f", text_[at_]) && text_[at_] != '\0') ++at_;
  }
  bool take(char c) {
    skip_space();
    if (peek() != c) return false;
    ++at_;
    return true;
  }
  bool word(const char* w) {
    const size_t n = std::strlen(w);
    if (text_.compare(at_, n, w) != 0) return false;
    const char after = at_ + n < text_.size() ? text_[at_ + n] : ' ';
    if (std::isalnum(static_cast<unsigned char>(after)) || after == '_') return false;
    at_ += n;
    last_word_ = w;
    return true;
  }
  Status string(std::string* out) {
    skip_space();
    const char quote = peek();
    if (quote != '\'' && quote != '"') return error("expected a quoted key");
    const size_t end = text_.find_first_of(std::string(1, quote) + "\\\n", at_ + 1);
    if (end == std::string::npos || text_[end] != quote)
      return error("has a string that is not closed or has an escape");
    *out = text_.substr(at_ + 1, end - at_ - 1);
    at_ = end + 1;
    return Status::success();
  }
  // A Python integer literal as ast.literal_eval reads one: decimal digits
  // with single underscores between them, no leading zeros unless all zeros.
  Status integer(int64_t* out) {
    skip_space();
    if (peek() == '-' || peek() == '+') return error("shape has a negative or non-integer entry");
    const size_t start = at_;
    int64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek())) ||
           (peek() == '_' && at_ > start && at_ + 1 < text_.size() &&
            std::isdigit(static_cast<unsigned char>(text_[at_ + 1])))) {
      if (peek() != '_' && (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, peek() - '0', &v)))
        return Status::error("shape entry overflows");
      ++at_;
    }
    if (at_ == start) return error("shape has a negative or non-integer entry");
    const std::string digits = text_.substr(start, at_ - start);
    if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of("0_") != std::string::npos)
      return error("shape entry " + digits + " has a leading zero");
    *out = v;
    return Status::success();
  }
  Status int_tuple(std::vector<int64_t>* out) {
    take('(');
    out->clear();
    if (take(')')) return Status::success();
    for (;;) {
      int64_t v = 0;
      if (Status s = integer(&v); !s) return s;
      out->push_back(v);
      const bool comma = take(',');
      if (take(')')) {
        // "(3)" is the integer 3, not a tuple.
        if (out->size() == 1 && !comma) return error("shape (" + std::to_string(v) + ") is not a tuple");
        return Status::success();
      }
      if (!comma) return error("shape is malformed");
    }
  }

  const std::string& text_;
  size_t at_ = 0;
  std::string last_word_;
};

// The header's shape and dtype ('descr') once its dict is numpy's; C order only.
Status parse_header(const std::string& header, std::vector<int64_t>* shape, std::string* descr) {
  HeaderParser::Dict dict;
  if (Status s = HeaderParser(header).parse(&dict); !s) return s;
  if (!dict.shape) return Status::error("header has no shape tuple");
  if (!dict.descr) return Status::error("header has no descr");
  if (!dict.fortran_order) return Status::error("header has no fortran_order");
  if (*dict.fortran_order) return Status::error("array is in Fortran order; only C order is supported");
  *shape = *dict.shape;
  *descr = *dict.descr;
  return Status::success();
}

// The float32 arrays' header.
Status parse_header(const std::string& header, std::vector<int64_t>* shape) {
  std::string descr;
  if (Status s = parse_header(header, shape, &descr); !s) return s;
  if (descr != "<f4")
    return Status::error("dtype must be float32 little-endian ('<f4'), got '" + descr + "'");
  return Status::success();
}

// Where the header starts and how long it is, from the first bytes
// (at least 12, or all the file has).
Status parse_preamble(const std::string& first, size_t* header_at, uint32_t* header_len) {
  if (first.size() < kMagicSize + 4 || std::memcmp(first.data(), kMagic, kMagicSize) != 0)
    return Status::error("not a .npy file (bad magic)");
  const uint8_t major = static_cast<uint8_t>(first[6]), minor = static_cast<uint8_t>(first[7]);
  *header_len = 0;
  if (minor != 0)  // as numpy: versions 1.0, 2.0 and 3.0 only
    return Status::error("unsupported .npy version " + std::to_string(major) + "." + std::to_string(minor));
  if (major == 1) {
    *header_len = uint8_t(first[8]) | uint32_t(uint8_t(first[9])) << 8;
    *header_at = 10;
  } else if (major == 2 || major == 3) {
    if (first.size() < 12) return Status::error("truncated header");
    for (int i = 3; i >= 0; --i) *header_len = *header_len << 8 | uint8_t(first[8 + i]);
    *header_at = 12;
  } else {
    return Status::error("unsupported .npy version " + std::to_string(major));
  }
  if (*header_len > kMaxHeader)
    return Status::error("header of " + std::to_string(*header_len) + " bytes is too large");
  return Status::success();
}

// The element count of `shape`, checked against the data bytes the file has.
Status check_data(const std::vector<int64_t>& shape, uint64_t data_bytes, int64_t* count,
                  uint64_t element_bytes = sizeof(float)) {
  // Every dimension within the bound, also after a 0 (numpy refuses
  // (0, 2^62, 2^62) too): the product of the non-zero ones.
  int64_t nonzero = 1;
  for (int64_t d : shape)
    if (d != 0 && (__builtin_mul_overflow(nonzero, d, &nonzero) || nonzero > (int64_t(1) << 60) / 8))
      return Status::error("shape " + shape_string(shape) + " is too large");
  *count = std::find(shape.begin(), shape.end(), 0) == shape.end() ? nonzero : 0;
  const uint64_t want = static_cast<uint64_t>(*count) * element_bytes;
  if (data_bytes != want)
    return Status::error("data is " + std::to_string(data_bytes) + " bytes but shape " +
                         shape_string(shape) + " needs " + std::to_string(want) +
                         (data_bytes < want ? " (truncated)" : " (trailing bytes)"));
  return Status::success();
}

}  // namespace

Status parse(const std::string& bytes, Array* array) {
  size_t header_at = 0;
  uint32_t header_len = 0;
  if (Status s = parse_preamble(bytes.substr(0, 12), &header_at, &header_len); !s) return s;
  if (bytes.size() < header_at + header_len) return Status::error("truncated header");
  std::vector<int64_t> shape;
  if (Status s = parse_header(bytes.substr(header_at, header_len), &shape); !s) return s;
  const size_t data_at = header_at + header_len;
  int64_t count = 0;
  if (Status s = check_data(shape, bytes.size() - data_at, &count); !s) return s;
  array->shape = shape;
  array->data.resize(count);
  if (count) std::memcpy(array->data.data(), bytes.data() + data_at, count * sizeof(float));
  return Status::success();
}

namespace {

// Opens `path` and reads its preamble and header (bounded by the file's
// size): the shape, the dtype and how many data bytes follow. The file is
// left at the data.
Status read_header(const std::string& path, support::RegularFile* file, std::vector<int64_t>* shape,
                   std::string* descr, uint64_t* data_bytes) {
  if (Status s = support::RegularFile::open(path, file); !s) return s;
  std::string first(std::min<uint64_t>(10, file->size()), '\0');
  if (Status s = file->read_exactly(first.data(), first.size()); !s) return s;
  if (first.size() == 10 && (first[6] == 2 || first[6] == 3) && file->size() >= 12) {
    first.resize(12);  // versions 2 and 3 have a 4-byte header length
    if (Status s = file->read_exactly(first.data() + 10, 2); !s) return s;
  }
  size_t header_at = 0;
  uint32_t header_len = 0;
  if (Status s = parse_preamble(first, &header_at, &header_len); !s) return s;
  if (file->size() < header_at + header_len)
    return Status::error("truncated header (the file is " + std::to_string(file->size()) +
                         " bytes, its header ends at byte " + std::to_string(header_at + header_len) + ")");
  std::string header(header_len, '\0');
  if (Status s = file->read_exactly(header.data(), header.size()); !s) return s;
  if (Status s = parse_header(header, shape, descr); !s) return s;
  *data_bytes = file->size() - header_at - header_len;
  return Status::success();
}

}  // namespace

Status read(const std::string& path, Array* array) {
  // The data goes straight into its final buffer, once.
  support::RegularFile file;
  std::vector<int64_t> shape;
  std::string descr;
  uint64_t bytes = 0;
  if (Status s = read_header(path, &file, &shape, &descr, &bytes); !s) return s;
  if (descr != "<f4")
    return Status::error("dtype must be float32 little-endian ('<f4'), got '" + descr + "'");
  int64_t count = 0;
  if (Status s = check_data(shape, bytes, &count); !s) return s;
  Array read{shape, std::vector<float>(count)};
  if (Status s = file.read_exactly(read.data.data(), count * sizeof(float)); !s) return s;
  *array = std::move(read);
  return Status::success();
}

Indices IntArray::indices() const {
  Indices i;
  i.type = int32 ? Indices::Type::Int32 : Indices::Type::Int64;
  i.size = int32 ? static_cast<int64_t>(data32.size()) : static_cast<int64_t>(data64.size());
  i.data = int32 ? static_cast<const void*>(data32.data()) : data64.data();
  // An empty array is given all the same (indices of no sequences): the
  // runtime takes a null pointer for "not given".
  static const int64_t kNoIndex = 0;
  if (i.size == 0) i.data = &kNoIndex;
  return i;
}

Status read(const std::string& path, IntArray* array) {
  support::RegularFile file;
  std::vector<int64_t> shape;
  std::string descr;
  uint64_t bytes = 0;
  if (Status s = read_header(path, &file, &shape, &descr, &bytes); !s) return s;
  if (descr != "<i4" && descr != "<i8")
    return Status::error("dtype must be int32 or int64 little-endian ('<i4' or '<i8'), got '" + descr + "'");
  IntArray read;
  read.shape = shape;
  read.int32 = descr == "<i4";
  int64_t count = 0;
  if (Status s = check_data(shape, bytes, &count, read.int32 ? 4 : 8); !s) return s;
  if (read.int32) {
    read.data32.resize(count);
    if (Status s = file.read_exactly(read.data32.data(), count * 4); !s) return s;
  } else {
    read.data64.resize(count);
    if (Status s = file.read_exactly(read.data64.data(), count * 8); !s) return s;
  }
  *array = std::move(read);
  return Status::success();
}

std::string header_bytes(const std::vector<int64_t>& shape, const char* descr) {
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                       shape_string(shape) + ", }";
  // Pad so that the data starts on a 64-byte boundary; the header ends in '\n'.
  const size_t unpadded = kMagicSize + 4 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  return out + header;
}

std::string_view data_bytes(const Array& array) {
  return {reinterpret_cast<const char*>(array.data.data()), array.data.size() * sizeof(float)};
}

std::string serialize(const IntArray& array) {
  std::string out = header_bytes(array.shape, array.int32 ? "<i4" : "<i8");
  if (array.int32)
    out.append(reinterpret_cast<const char*>(array.data32.data()), array.data32.size() * 4);
  else
    out.append(reinterpret_cast<const char*>(array.data64.data()), array.data64.size() * 8);
  return out;
}

std::string serialize(const Array& array) {
  std::string out = header_bytes(array.shape);
  out += data_bytes(array);
  return out;
}

Status write(const std::string& path, const Array& array) {
  support::StagedOutputs outputs;
  if (Status s = outputs.add(path, path); !s) return s;
  if (Status s = outputs.write(0, {header_bytes(array.shape), data_bytes(array)}); !s) return s;
  return outputs.commit();
}

Status write(const std::string& path, const IntArray& array) {
  support::StagedOutputs outputs;
  if (Status s = outputs.add(path, path); !s) return s;
  if (Status s = outputs.write(0, {serialize(array)}); !s) return s;
  return outputs.commit();
}

}  // namespace gdr::npy
