// Fuzzes the .npy reader gdr-run and gdr-bench use on the files they are
// given: it must refuse or parse, never read past the bytes; what it parses
// has as many values as its shape says, and writes back to the same shape.
#include <cstdint>
#include <cstring>
#include <string>

#include "npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t n) {
  gdr::npy::Array array;
  if (!gdr::npy::parse(std::string(reinterpret_cast<const char*>(bytes), n), &array)) return 0;
  int64_t count = 1;
  for (int64_t d : array.shape) count *= d;
  if (count != static_cast<int64_t>(array.data.size())) __builtin_trap();
  gdr::npy::Array again;
  if (!gdr::npy::parse(gdr::npy::serialize(array), &again) || again.shape != array.shape) __builtin_trap();
  // The same bits (NaN payloads too).
  if (!array.data.empty() &&
      std::memcmp(again.data.data(), array.data.data(), array.data.size() * sizeof(float)) != 0)
    __builtin_trap();
  return 0;
}
