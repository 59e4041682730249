// NumPy .npy files: float32 (tensors) or int32/int64 (offsets and indices),
// little-endian, C order. Anything else is rejected with a message; nothing
// here throws or crashes on bad input.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gdr/status.h"
#include "gdr/array_shapes.h"
#include "gdr/tensors.h"

namespace gdr::npy {

struct Array {
  std::vector<int64_t> shape;
  std::vector<float> data;
};

// Integers ('<i4' or '<i8'), kept in the file's type.
struct IntArray {
  std::vector<int64_t> shape;
  bool int32 = false;            // '<i4': data32, else data64
  std::vector<int32_t> data32;
  std::vector<int64_t> data64;
  Indices indices() const;       // a view of the data, in its type
};

using gdr::shape_string;  // "(2, 3)"

// Parses a whole file's bytes. The header must be what numpy itself reads:
// a dict literal with exactly 'descr', 'fortran_order' and 'shape'.
Status parse(const std::string& bytes, Array* array);
// Reads a regular file only (not a FIFO or a device), no more than its size,
// the data straight into its final buffer.
Status read(const std::string& path, Array* array);
// The same for integers: '<i4' or '<i8', anything else refused.
Status read(const std::string& path, IntArray* array);

// Format version 1.0: the preamble and header (data 64-byte aligned), then
// the data; serialize() is both.
std::string header_bytes(const std::vector<int64_t>& shape, const char* descr = "<f4");
std::string_view data_bytes(const Array& array);
std::string serialize(const Array& array);
std::string serialize(const IntArray& array);
// Writes `path` alone through support::StagedOutputs (a unique temporary
// renamed into place): a reader never sees a partial file.
Status write(const std::string& path, const Array& array);
Status write(const std::string& path, const IntArray& array);

}  // namespace gdr::npy
