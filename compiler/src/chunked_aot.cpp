// The chunked route ahead of time: object, header (and assembly) for a
// target, and the one Halide runtime object a program links next to them.
#include "gdr/compiler/chunked.h"

#include <Halide.h>

#include <exception>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "gdr/compiler/aot_object.h"
#include "gdr/compiler/halide_target.h"
#include "gdr/halide_chunked_abi.h"
#include "gdr/kernel_abi.h"
#include "gdr/schedules/chunked_algorithm.h"
#include "gdr/schedules/chunked_schedule.h"
#include "gdr/support/scratch_file.h"
#include "halide_pipeline.h"

namespace gdr::compiler {

namespace {

// Halide names a header's include guard after the path it writes to
// (Module::compile): a header written under a staging name gets the guard
// of the name it is staged for.
Status rename_include_guard(const std::string& header, const std::string& final_path) {
  auto guard = [](const std::string& path) { return "HALIDE_" + Halide::Internal::c_print_name(path); };
  std::ifstream in(header, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = guard(header), to = guard(final_path);
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  std::ofstream out(header, std::ios::binary | std::ios::trunc);
  out << text;
  return out ? Status::success() : Status::error("cannot rewrite " + header);
}

}  // namespace

Status compile_chunked_to_files(const ChunkedSpec& spec, const std::string& target_name,
                                const std::string& function_name, const ChunkedFiles& paths) {
  try {
    Halide::Target target;
    if (Status s = parse_target(target_name, &target); !s) return s;
    target = target.with_feature(Halide::Target::NoRuntime);
    schedules::ChunkedAlgorithm alg;
    if (Status s = build_pipeline(spec, target, alg); !s) return s;
    std::map<Halide::OutputFileType, std::string> files;
    for (const auto& [type, path] : {std::pair{Halide::OutputFileType::object, paths.object},
                                     std::pair{Halide::OutputFileType::c_header, paths.header},
                                     std::pair{Halide::OutputFileType::assembly, paths.assembly},
                                     std::pair{Halide::OutputFileType::llvm_assembly, paths.llvm_ir}})
      if (!path.empty()) files[type] = path;
    if (files.empty()) return Status::error("compile_chunked_to_files: no output asked for");
    alg.pipeline().compile_to(files, alg.arguments(), function_name, target);
    if (!paths.header.empty() && !paths.header_final.empty())
      if (Status s = rename_include_guard(paths.header, paths.header_final); !s) return s;
  } catch (const Halide::Error& e) {
    return Status::error("Halide failed to compile " + function_name + ": " + e.what());
  } catch (const std::exception& e) {
    return Status::error("cannot compile " + function_name + ": " + e.what());
  }
  return Status::success();
}

Status compile_halide_runtime(const std::string& target_name, const std::string& object_path) {
  try {
    Halide::Target target;
    if (Status s = parse_target(target_name, &target); !s) return s;
    Halide::compile_standalone_runtime(object_path, target);
  } catch (const Halide::Error& e) {
    return Status::error(std::string("Halide failed to compile its runtime: ") + e.what());
  } catch (const std::exception& e) {
    return Status::error(std::string("cannot compile the Halide runtime: ") + e.what());
  }
  return Status::success();
}

Status compile_chunked_object(const ChunkedSpec& spec, const Target& target, const std::string& name,
                              const std::string& object_path, const std::string& assembly_path) {
  std::string halide_target;
  if (Status s = halide_target_string(target, &halide_target); !s) return s;
  EntryPoint entry;
  entry.kind = EntryPoint::Kind::Halide;
  entry.callee = name + "_halide";
  entry.chunk = spec.schedule.chunk;
  entry.info.assign(GDR_KERNEL_INFO_FIELDS, 0);
  entry.info[GDR_INFO_ABI_VERSION] = GDR_KERNEL_ABI_VERSION;
  entry.info[GDR_INFO_K] = spec.K;
  entry.info[GDR_INFO_V] = spec.V;
  // Column parts must follow the hand schedule's tiling; Adams2019 picks its
  // own, so its kernels run whole heads (as the JIT route's do).
  entry.info[GDR_INFO_COLUMN_ALIGN] =
      spec.scheduler == Scheduler::Hand ? schedules::chunked_column_align(static_cast<int>(spec.V), spec.schedule) : 0;
  entry.info[GDR_INFO_SCRATCH_FLOATS] = halide_chunked_scratch_floats(0, spec.K, spec.V);
  entry.info[GDR_INFO_VECTOR_BITS] =
      spec.scheduler == Scheduler::Hand ? 32 * spec.schedule.vector_width : target.vector_bits;
  entry.info[GDR_INFO_DECAY_KIND] = spec.decay == DecayKind::Scalar ? GDR_DECAY_SCALAR : GDR_DECAY_CHANNEL;
  entry.info[GDR_INFO_READOUTS] = spec.readouts;
  support::ScratchFile pipeline(object_path, ".halide.o");
  if (!pipeline.status()) return pipeline.status();
  if (Status s = compile_chunked_to_files(spec, halide_target, entry.callee,
                                          {pipeline.path(), "", assembly_path, "", ""});
      !s)
    return s;
  return link_aot_object(target, name, {pipeline.path()}, &entry, object_path);
}

}  // namespace gdr::compiler
