// The CPU code is generated for: the host as LLVM detects it, or one given.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gdr/status.h"

namespace llvm {
class Module;
class TargetMachine;
}

namespace gdr::compiler {

struct Target {
  std::string triple;    // e.g. x86_64-pc-linux-gnu
  std::string cpu;       // LLVM's CPU name, e.g. icelake-client
  std::string features;  // LLVM's feature string, e.g. +avx512f,+fma,...
  int vector_bits = 128; // widest float vector: 512 with AVX-512F, 256 with AVX
};

// Registers LLVM's native target and its assembly printer, once per
// process (the JIT and make_target_machine both need them).
void initialize_native_target();

// The host, detected once.
const Target& host_target();

// Its vector registers: 16 on x86 below AVX-512 (SSE, AVX, AVX2), else 32
// (AVX-512, NEON), as the recurrent route's lowering counts them.
int vector_registers(const Target& target);

// "" if LLVM (as initialised here) has a target for `triple`, else why.
std::string why_triple_unknown(const std::string& triple);
// "" if the kernels for `triple` are ones the runtime loads and runs: x86-64
// or little-endian aarch64, 64-bit pointers, ELF objects; else why.
std::string why_triple_not_served(const std::string& triple);
// "" if LLVM knows `cpu` for `triple` ("" is its generic CPU), else why.
std::string why_cpu_unknown(const std::string& triple, const std::string& cpu);

// "" if each comma-separated item of `features` is +name or -name with a
// name `triple`'s LLVM target knows, else why not ("'avx2' must start with
// + or -", "unknown feature 'bogus' for x86_64"). LLVM reads a name without
// a sign as disabled and only warns about one it does not know. It points
// stderr (fd 2) at /dev/null meanwhile, to keep LLVM's warning out: for a
// tool's flag checks, before other threads write there.
std::string why_features_bad(const std::string& triple, const std::string& features);

// The target of gdr-compile's flags: the host when neither `triple` nor
// `cpu` is given; else `triple` (default: the host's) and `cpu` (default:
// "generic") with that CPU's own features, adjusted by `features` when given
// (checked first: why_features_bad), and the widest vectors they have.
// Nothing of the host leaks into another CPU. An unknown triple or CPU is
// an error.
Status target_for(const std::string& triple, const std::string& cpu, const std::string& features,
                  Target* target);

// LLVM's name of a triple's architecture: x86_64, aarch64.
std::string architecture_name(const std::string& triple);

// Whether `target`'s CPU with its features has each of `features` (LLVM's
// names, "+avx2,+fma"). Ask only names the target's architecture has: LLVM
// stops the process for a feature name its target does not know.
bool target_has_features(const Target& target, const std::string& features);

// A TargetMachine for `target` (PIC, aggressive optimisation); null with
// `*error` set if LLVM has no such target or does not know the CPU.
std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target& target, std::string* error);

// `module`'s code as `tm` emits it: an object file, or assembly text.
Status emit_code(llvm::TargetMachine& tm, llvm::Module& module, std::vector<char>* code,
                 bool assembly = false);

}  // namespace gdr::compiler
