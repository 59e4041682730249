// The machine's own limits, measured here and now, so every figure can be
// read as a fraction of what this machine can do.
#pragma once

#include <string>

namespace gdr::bench {

struct MachinePeak {
  double fma_gflops_1t = 0, fma_gflops_2t = 0;  // float32 FMA throughput
  double copy_gbps_1t = 0;                      // streaming copy, read + write bytes
  int vector_bits = 0;                          // widest vector the loop used
};

MachinePeak measure_peak();

// A line saying that 2 threads do not get 2 cores' throughput now (empty if
// they do): on a machine that gives the process two or more CPUs, two
// threads ran the FMA loop at less than 1.5x one thread's speed (another
// program on the cores, or hyperthreads of one core), so times on several
// threads do not show the machine. Seen while a niced build ran beside
// gdr-bench on the 2-core VM: 218.7 GFLOP/s on 1 thread, 221.6 on 2.
std::string shared_cores_warning(const MachinePeak& peak, int usable_cpus);

// One short run of the FMA loop (about a millisecond) on `threads` threads,
// timed: its nanoseconds, and in *flops the flops it ran. gdr-bench
// interleaves it with a case's implementations, because on a shared VM the
// CPU a process gets moves during a run (a start-of-run peak of 89 GFLOP/s
// on 2 threads against a kernel's 183 later in the same run was seen).
double fma_sample_ns(int threads, double* flops);

}  // namespace gdr::bench
