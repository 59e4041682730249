// The check both programs run: a kernel through gdr::execute over several
// shapes, decays and column splits against the float64 reference computed
// here (the contract's bars, gdr/reference/reference.h).
#pragma once

#include <cstdint>

#include "gdr/runtime.h"

// Prints one line for the kernel (with its vector width when vector_bits >
// 0); returns the number of cases outside the contract.
int check_kernel(const gdr::Kernel& kernel, int64_t vector_bits);
