// The machine's own limits, measured here and now, so every figure can be
// read as a fraction of what this machine can do.
#pragma once

namespace gdr::bench {

struct MachinePeak {
  double fma_gflops_1t = 0, fma_gflops_2t = 0;  // float32 FMA throughput
  double copy_gbps_1t = 0;                      // streaming copy, read + write bytes
  int vector_bits = 0;                          // widest vector the loop used
};

MachinePeak measure_peak();

}  // namespace gdr::bench
