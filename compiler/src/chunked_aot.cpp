// The chunked route ahead of time: object, header (and assembly) for a
// target, and the one Halide runtime object a program links next to them.
#include "gdr/compiler/chunked.h"

#include <Halide.h>

#include <exception>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "gdr/schedules/chunked_algorithm.h"
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
  return out ? Status::ok() : Status::error("cannot rewrite " + header);
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
  return Status::ok();
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
  return Status::ok();
}

}  // namespace gdr::compiler
