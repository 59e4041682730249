// What this build of the code generator is, for the tools' --version: the
// versions and the source hash the kernel cache keys hold (every key the
// LLVM version and the hash; the chunked route's the Halide version too).
#pragma once

namespace gdr::compiler {

struct BuildInfo {
  const char* llvm_version;          // LLVM_VERSION_STRING, e.g. "14.0.6"
  const char* halide_version;        // Halide's CMake package version, e.g. "14.0.0"
  const char* codegen_sources_hash;  // SHA-256 of the code-generating sources (disk_cache.h)
};
BuildInfo build_info();

}  // namespace gdr::compiler
