// gdr-compile: ahead-of-time compilation of one kernel to an object file and
// a C header, for the host or a named target; and of the one Halide runtime
// object that programs linking chunked kernels need. Every output is checked
// before compiling and all appear together or none (support::StagedOutputs).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "../common/exit_codes.h"
#include "../common/flags.h"
#include "../common/version.h"
#include "gdr/compiler/aot_object.h"
#include "gdr/compiler/chunked.h"
#include "gdr/compiler/cpu_features.h"
#include "gdr/compiler/halide_target.h"
#include "gdr/compiler/kernel_header.h"
#include "gdr/compiler/object_kernel_info.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/shared_object.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/target_flags.h"
#include "gdr/compiler/variant.h"
#include "gdr/support/staged_outputs.h"

namespace {

const char kUsage[] =
    "usage: gdr-compile --route recurrent|chunked --K N --V N --out PREFIX [target] [--emit obj|mlir|llvm|asm]\n"
    "         writes PREFIX.o and PREFIX.h (or PREFIX.mlir, .ll, .s: the gdr module, the LLVM IR or the\n"
    "         assembly; mlir is the recurrent route's only)\n"
    "       target: --target host (the default) | x86-64-v2 | x86-64-v3 | x86-64-v4 | aarch64 (generic,\n"
    "                        NEON) | a CPU name (haswell, cortex-a76, neoverse-n1) | an LLVM triple\n"
    "               [--cpu C] (with a triple) [--features F] (LLVM's, e.g. +avx2,+fma)\n"
    "               or --triple T [--cpu C] [--features F]; a CPU brings its own features and vector\n"
    "               width, a triple alone its generic CPU; both routes are built for the same target\n"
    "       recurrent: [--vector-width 16 --v-tile 64 --unroll 1 --prefetch 2] [--vector-bits 512]\n"
    "                  [--shared 1: also link PREFIX.so for gdr::load_kernel (ld.lld)]\n"
    "         schedule flags default to the target's default schedule\n"
    "       chunked: [--schedule c16-w16 (vector width capped at the target's)]\n"
    "                [--scheduler hand|adams2019] [--name FUNCTION] [--asm 1: also write PREFIX.s]\n"
    "         PREFIX.o has no Halide runtime inside\n"
    "       gdr-compile --runtime OBJECT [target]\n"
    "         writes the one Halide runtime object chunked kernels link against\n"
    "       gdr-compile --version\n";

const std::set<std::string> kCommonFlags = {"--route", "--K", "--V", "--out", "--target",
                                            "--triple", "--cpu", "--features", "--emit"};
const std::set<std::string> kTargetFlags = {"--target", "--triple", "--cpu", "--features"};
const std::set<std::string> kRecurrentFlags = {"--vector-width", "--v-tile", "--unroll", "--prefetch",
                                               "--vector-bits", "--shared"};
const std::set<std::string> kChunkedFlags = {"--schedule", "--scheduler", "--name", "--asm"};

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "gdr-compile: %s\n", message.c_str());
  return code;
}
// A bad command line, or an output that cannot be written (checked before
// compiling): nothing was compiled.
int usage_error(const std::string& message) { return fail(gdr::tools::kExitUsage, message); }
// The compile or writing its files failed.
int failed(const std::string& message) { return fail(gdr::tools::kExitFailed, message); }

using Args = std::map<std::string, std::string>;

// Stages PREFIX + suffix, named by the flag that gave it. A prefix must name
// a file to come: not empty, not a folder.
gdr::Status add_output(gdr::support::StagedOutputs& outputs, const std::string& prefix,
                       const std::string& suffix, size_t* index = nullptr) {
  if (prefix.empty()) return gdr::Status::error("--out: the path prefix is empty");
  if (prefix.back() == '/')
    return gdr::Status::error("--out " + prefix + ": names a folder; give a path prefix such as " +
                              prefix + "kernel");
  return outputs.add("--out " + prefix + suffix, prefix + suffix, index);
}

// The target both routes are built for, from --target, --triple, --cpu and
// --features (the message names the flag at fault).
gdr::Status target_of(const gdr::tools::Flags& flags, gdr::compiler::Target* target) {
  return gdr::compiler::resolve_target({flags.get("--target"), flags.get("--triple"), flags.get("--cpu"),
                                        flags.get("--features")},
                                       target);
}

// The --emit stage: obj (also "object"), mlir, llvm or asm.
gdr::Status emit_of(const gdr::tools::Flags& flags, std::string* emit) {
  *emit = flags.get("--emit", "obj");
  if (*emit == "object") *emit = "obj";
  if (*emit != "obj" && *emit != "mlir" && *emit != "llvm" && *emit != "asm")
    return gdr::Status::error("--emit: expected mlir, llvm, asm or obj, got '" + *emit + "'");
  return gdr::Status::ok();
}

// The header of the kernel whose object was staged at `object_path`, from
// the object's own <name>_info (so the header cannot disagree with the
// kernel: the K and V it was built for, where a column range may start, its
// scratch per worker and vectors).
gdr::Status kernel_header_of(const std::string& object_path, const std::string& name,
                             const gdr::compiler::Variant& variant, const std::string& target_text,
                             const gdr::compiler::Target& target, std::string* header) {
  std::ifstream in(object_path, std::ios::binary);
  const std::vector<char> object((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return gdr::Status::error("cannot read back " + object_path);
  gdr::compiler::KernelHeader h;
  h.name = name;
  h.variant = variant.str();
  h.target = target_text;
  h.cpu_features = gdr::compiler::required_cpu_features(target);
  if (gdr::Status s = gdr::compiler::object_kernel_info(object, name, &h.info); !s) return s;
  *header = gdr::compiler::kernel_header(h);
  return gdr::Status::ok();
}

int compile_recurrent(const gdr::tools::Flags& flags, const gdr::compiler::KernelSpec& spec) {
  gdr::compiler::Target target;
  if (gdr::Status s = target_of(flags, &target); !s) return usage_error(s.message());
  // Narrower vectors than the target's are a choice; wider ones it cannot run
  // (LLVM would split them: NEON has 4 floats, whatever a schedule asks).
  int64_t bits = target.vector_bits;
  if (gdr::Status s = flags.integer("--vector-bits", 128, target.vector_bits, &bits); !s)
    return usage_error(s.message() + " (the target's widest vectors)");
  target.vector_bits = static_cast<int>(bits);
  // Out-of-range knobs are the dialect verifier's to explain (it names them).
  gdr::compiler::Variant variant = gdr::compiler::recurrent_variant(
      spec.K, spec.V, gdr::compiler::dialect_default_recurrent(spec.K, target));
  gdr::compiler::RecurrentSchedule& schedule = variant.recurrent;
  for (gdr::Status s : {flags.integer("--vector-width", 1, 1024, &schedule.vector_width),
                        flags.integer("--v-tile", 1, 1 << 20, &schedule.v_tile),
                        flags.integer("--unroll", 1, 1024, &schedule.unroll),
                        flags.integer("--prefetch", 0, 1024, &schedule.prefetch)})
    if (!s) return usage_error(s.message());

  int64_t shared = 0;
  if (gdr::Status s = flags.integer("--shared", 0, 1, &shared); !s) return usage_error(s.message());
  // mlir: the gdr module; llvm, asm: the optimised LLVM IR or the assembly
  // of the same code; obj (object): the object and its header.
  std::string emit;
  if (gdr::Status s = emit_of(flags, &emit); !s) return usage_error(s.message());
  const std::map<std::string, std::pair<const char*, gdr::compiler::RecurrentOutput>> text_outputs = {
      {"llvm", {".ll", gdr::compiler::RecurrentOutput::LlvmIr}},
      {"asm", {".s", gdr::compiler::RecurrentOutput::Assembly}}};
  if (shared && emit != "obj") return usage_error("--shared: needs --emit obj");

  const std::string prefix = flags.get("--out");
  const std::string name = variant.name();
  gdr::support::StagedOutputs outputs;
  if (emit == "mlir") {
    if (gdr::Status s = add_output(outputs, prefix, ".mlir"); !s) return usage_error(s.message());
    const std::string text = gdr::compiler::recurrent_module_text(spec, schedule, target);
    if (gdr::Status s = outputs.write(0, {text}); !s) return failed(s.message());
  } else if (text_outputs.count(emit)) {
    const auto& [suffix, kind] = text_outputs.at(emit);
    if (gdr::Status s = add_output(outputs, prefix, suffix); !s) return usage_error(s.message());
    std::vector<char> text;
    if (gdr::Status s = gdr::compiler::compile_recurrent_object(spec, schedule, target, &text, kind); !s)
      return failed(s.message());
    if (gdr::Status s = outputs.write(0, {std::string_view(text.data(), text.size())}); !s)
      return failed(s.message());
  } else {
    for (const char* suffix : {".o", ".h", ".so"})
      if (std::string(suffix) != ".so" || shared)
        if (gdr::Status s = add_output(outputs, prefix, suffix); !s) return usage_error(s.message());
    std::vector<char> code;
    if (gdr::Status s = gdr::compiler::compile_recurrent_object(spec, schedule, target, &code); !s)
      return failed(s.message());
    // The code and the CPU features it needs, in one object.
    gdr::compiler::ScratchFile code_file(outputs.temporary(0), ".code.o");
    if (!code_file.status()) return failed(code_file.status().message());
    if (!(std::ofstream(code_file.path(), std::ios::binary | std::ios::trunc)
              .write(code.data(), static_cast<std::streamsize>(code.size()))))
      return failed("cannot write " + code_file.path());
    if (gdr::Status s = gdr::compiler::link_aot_object(target, name, {code_file.path()}, nullptr, outputs.temporary(0)); !s)
      return failed(s.message());
    std::string header;
    if (gdr::Status s = kernel_header_of(outputs.temporary(0), name, variant, target.triple + " " + target.cpu,
                                         target, &header);
        !s)
      return failed(s.message());
    if (gdr::Status s = outputs.write(1, {header}); !s) return failed(s.message());
    if (shared)
      if (gdr::Status s = gdr::compiler::link_shared_object(outputs.temporary(0), outputs.temporary(2),
                                                            std::filesystem::path(prefix + ".so").filename()); !s)
        return failed("--shared: " + s.message());
  }
  if (gdr::Status s = outputs.commit(); !s) return failed(s.message());
  std::printf("%s\n", name.c_str());
  return 0;
}

int compile_chunked(const gdr::tools::Flags& flags, Args& args, int64_t K, int64_t V) {
  gdr::compiler::Target target;
  if (gdr::Status s = target_of(flags, &target); !s) return usage_error(s.message());
  std::string halide_target;
  if (gdr::Status s = gdr::compiler::halide_target_string(target, &halide_target); !s)
    return usage_error("--target: " + s.message());
  // The default schedule with vectors no wider than the target's.
  const int target_floats = target.vector_bits / 32;
  gdr::schedules::Schedule schedule = gdr::schedules::default_schedule();
  schedule.vector_width = std::min(schedule.vector_width, target_floats);
  gdr::compiler::Variant variant = gdr::compiler::chunked_variant(K, V, schedule);
  if (args.count("--schedule")) {
    std::string error;
    if (!gdr::compiler::parse_variant_schedule(gdr::Route::Chunked, args["--schedule"], &variant,
                                               &error))
      return usage_error("--schedule: " + error);
    if (variant.chunked.vector_width > target_floats)
      return usage_error("--schedule: " + args["--schedule"] + " needs " +
                         std::to_string(variant.chunked.vector_width * 32) + "-bit vectors, the target (" +
                         target.triple + ", " + target.cpu + ") has " + std::to_string(target.vector_bits));
  }
  if (args.count("--scheduler")) {
    const std::string& s = args["--scheduler"];
    if (s == "hand") variant.scheduler = gdr::compiler::Scheduler::Hand;
    else if (s == "adams2019") variant.scheduler = gdr::compiler::Scheduler::Adams2019;
    else return usage_error("--scheduler: expected hand or adams2019, got '" + s + "'");
  }
  const gdr::compiler::ChunkedSpec spec{K, V, variant.chunked, variant.scheduler};
  const std::string name = args.count("--name") ? args["--name"] : variant.name();
  std::string emit;
  if (gdr::Status s = emit_of(flags, &emit); !s) return usage_error(s.message());
  if (emit == "mlir")
    return usage_error("--emit mlir: the chunked route is a Halide pipeline and has no gdr module; "
                       "give llvm, asm or obj");
  int64_t assembly = 0;
  if (gdr::Status s = flags.integer("--asm", 0, 1, &assembly); !s) return usage_error(s.message());
  if (assembly && emit != "obj") return usage_error("--asm: needs --emit obj (--emit asm writes only the assembly)");
  gdr::support::StagedOutputs outputs;
  gdr::compiler::ChunkedFiles files;
  const std::string& prefix = args["--out"];
  auto stage = [&](const char* suffix, std::string* path) {
    size_t index = 0;
    gdr::Status s = add_output(outputs, prefix, suffix, &index);
    if (s) *path = outputs.temporary(index);
    return s;
  };
  gdr::Status staged = gdr::Status::ok();
  if (emit == "obj") {
    staged = stage(".o", &files.object);
    std::string header;  // written from the object's table, index 1
    if (staged) staged = stage(".h", &header);
    if (staged && assembly) staged = stage(".s", &files.assembly);
  } else if (emit == "asm") {
    staged = stage(".s", &files.assembly);
  } else {
    staged = stage(".ll", &files.llvm_ir);
  }
  if (!staged) return usage_error(staged.message());
  if (emit == "obj") {
    if (gdr::Status s = gdr::compiler::compile_chunked_object(spec, target, name, files.object, files.assembly); !s)
      return failed(s.message());
    std::string header;
    if (gdr::Status s = kernel_header_of(files.object, name, variant,
                                         target.triple + " " + target.cpu + " (Halide " + halide_target + ")",
                                         target, &header);
        !s)
      return failed(s.message());
    if (gdr::Status s = outputs.write(1, {header}); !s) return failed(s.message());
  } else if (gdr::Status s = gdr::compiler::compile_chunked_to_files(spec, halide_target, name + "_halide", files); !s) {
    return failed(s.message());
  }
  if (gdr::Status s = outputs.commit(); !s) return failed(s.message());
  std::printf("%s\n", name.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::set<std::string> known = kCommonFlags;
  known.insert(kRecurrentFlags.begin(), kRecurrentFlags.end());
  known.insert(kChunkedFlags.begin(), kChunkedFlags.end());
  known.insert("--runtime");
  gdr::tools::Flags flags;
  if (gdr::Status s = gdr::tools::Flags::parse(argc, argv, known, &flags); !s) return usage_error(s.message());
  if (flags.help()) {
    std::fputs(kUsage, stdout);
    std::fputs(gdr::tools::kExitCodesHelp, stdout);
    return gdr::tools::kExitOk;
  }
  if (flags.version()) {
    std::fputs(gdr::tools::version_text("gdr-compile").c_str(), stdout);
    return gdr::tools::kExitOk;
  }
  Args args = flags.all();
  if (args.count("--runtime")) {
    for (const auto& [flag, value] : args)
      if (flag != "--runtime" && !kTargetFlags.count(flag))
        return usage_error("--runtime takes only the target flags, not " + flag);
    gdr::compiler::Target target;
    if (gdr::Status s = target_of(flags, &target); !s) return usage_error(s.message());
    std::string halide_target;
    if (gdr::Status s = gdr::compiler::halide_target_string(target, &halide_target); !s)
      return usage_error("--target: " + s.message());
    gdr::support::StagedOutputs outputs;
    if (gdr::Status s = outputs.add("--runtime " + args["--runtime"], args["--runtime"]); !s)
      return usage_error(s.message());
    gdr::Status s = gdr::compiler::compile_halide_runtime(halide_target, outputs.temporary(0));
    if (s) s = outputs.commit();
    return s ? gdr::tools::kExitOk : failed(s.message());
  }

  const std::string route = flags.get("--route");
  if (route != "recurrent" && route != "chunked")
    return usage_error("--route: expected recurrent or chunked, got '" + route + "' (see --help)");
  const std::set<std::string>& route_flags = route == "recurrent" ? kRecurrentFlags : kChunkedFlags;
  for (const auto& [flag, value] : args)
    if (!kCommonFlags.count(flag) && !route_flags.count(flag))
      return usage_error(flag + " does not apply to --route " + route + " (see --help)");
  constexpr int64_t kMaxSize = int64_t(1) << 20;  // the dialect's own bound says more per route
  int64_t K = 0, V = 0;
  if (!flags.has("--K") || !flags.has("--V")) return usage_error("--K and --V are required");
  for (gdr::Status s : {flags.integer("--K", 1, kMaxSize, &K), flags.integer("--V", 1, kMaxSize, &V)})
    if (!s) return usage_error(s.message());
  if (!flags.has("--out")) return usage_error("--out: missing output path prefix");
  return route == "recurrent" ? compile_recurrent(flags, gdr::compiler::KernelSpec{K, V})
                              : compile_chunked(flags, args, K, V);
}
