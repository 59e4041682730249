// NumPy .npy files: float32, little-endian, C order. Anything else is
// rejected with a message; nothing here throws or crashes on bad input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr::npy {

struct Array {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

std::string shape_string(const std::vector<int64_t>& shape);  // "(2, 3)"

// Parses a whole file's bytes.
Status parse(const std::string& bytes, Array* array);
Status read(const std::string& path, Array* array);

std::string serialize(const Array& array);  // format version 1.0
// Writes `path` through a temporary file renamed into place, so a reader
// never sees a partial file.
Status write(const std::string& path, const Array& array);

}  // namespace gdr::npy
