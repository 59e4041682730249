// gdr-compile: ahead-of-time compilation of one kernel to an object file and
// a C header, for the host or a named target; and of the one Halide runtime
// object that programs linking chunked kernels need. Every output is checked
// before compiling and all appear together or none (support::StagedOutputs).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>

#include "../common/error_line.h"
#include "../common/exit_codes.h"
#include "../common/flags.h"
#include "../common/implementations.h"
#include "gdr/compiler/aot_object.h"
#include "gdr/compiler/chunked.h"
#include "gdr/compiler/cpu_features.h"
#include "gdr/compiler/halide_target.h"
#include "gdr/compiler/kernel_header.h"
#include "gdr/compiler/object_kernel_info.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/shared_object.h"
#include "gdr/compiler/static_library.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/target_flags.h"
#include "gdr/compiler/variant.h"
#include "gdr/support/scratch_file.h"
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
    "       [--name FUNCTION: the entry point's name (default: the variant's, as printed)]\n"
    "       [--decay channel|scalar] [--readouts R: query heads per state head, 1 to 8]\n"
    "         the kernel's form (docs/op-contract.md); default channel, 1\n"
    "       recurrent: [--schedule w16-vt64-u1-p2] [--vector-width 16 --v-tile 64 --unroll 1 --prefetch 2]\n"
    "                  [--sweep-tokens 1|2: tokens one sweep of the tile updates] [--vector-bits 512]\n"
    "         schedule flags default to the target's default schedule\n"
    "       chunked: [--schedule c16-w16 (default: c16 with the target's vector width; no wider)]\n"
    "                [--scheduler hand|adams2019] [--asm 1: also write PREFIX.s]\n"
    "                [--halide-abi LIB: gdr's Halide bridge for the target's architecture, for\n"
    "                 --shared/--archive (default: this gdr's, for this machine's architecture)]\n"
    "         PREFIX.o has no Halide runtime inside (link one from --runtime and gdr::halide_abi)\n"
    "       libraries (--emit obj, either route): [--shared 1: also link PREFIX.so for gdr::load_kernel]\n"
    "         [--archive 1: also write PREFIX.a: the object and, for chunked, the Halide runtime and\n"
    "          bridge, so that a program links PREFIX.a and gdr::runtime only]\n"
    "       gdr-compile --runtime OBJECT [target]\n"
    "         writes the one Halide runtime object chunked kernels link against\n"
    "       gdr-compile --version\n";

const std::set<std::string> kCommonFlags = {"--route", "--K", "--V", "--out", "--target", "--triple",
                                            "--cpu", "--features", "--emit", "--shared", "--archive",
                                            "--schedule", "--name", "--decay", "--readouts"};
const std::set<std::string> kTargetFlags = {"--target", "--triple", "--cpu", "--features"};
const std::set<std::string> kRecurrentFlags = {"--vector-width", "--v-tile", "--unroll", "--prefetch",
                                               "--sweep-tokens", "--vector-bits"};
const std::set<std::string> kChunkedFlags = {"--scheduler", "--asm", "--halide-abi"};

int fail(int code, const std::string& message) { return gdr::tools::error_line("gdr-compile", code, message); }
// A bad command line, or an output that cannot be written (checked before
// compiling): nothing was compiled.
int usage_error(const std::string& message) { return fail(gdr::tools::kExitUsage, message); }
// The compile or writing its files failed.
int failed(const std::string& message) { return fail(gdr::tools::kExitFailed, message); }

using Args = std::map<std::string, std::string>;

// This gdr's Halide bridge for this machine: installed beside the tools
// (PREFIX/lib), else the one of the build tree this gdr-compile belongs to.
std::string own_halide_abi() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path installed = exe.parent_path() / GDR_HALIDE_ABI_FROM_BINDIR;
    if (std::filesystem::is_regular_file(installed, ec)) return installed.lexically_normal().string();
  }
  return std::filesystem::is_regular_file(GDR_HALIDE_ABI_BUILT, ec) ? GDR_HALIDE_ABI_BUILT : "";
}

// Stages PREFIX + suffix, named by the flag that gave it. A prefix must name
// a file to come, not a folder (Flags refuses an empty one).
gdr::Status add_output(gdr::support::StagedOutputs& outputs, const std::string& prefix,
                       const std::string& suffix, size_t* index = nullptr) {
  if (prefix.back() == '/')
    return gdr::Status::error("--out " + prefix + ": names a folder; give a path prefix such as " +
                              prefix + "kernel");
  return outputs.add("--out " + prefix + suffix, prefix + suffix, index);
}

// Why `name` cannot name a kernel's entry point in the header gdr-compile
// writes (C and C++): "" if it can.
std::string why_not_a_kernel_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) ||
      !std::all_of(name.begin(), name.end(),
                   [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
    return "is not a C identifier";
  static const std::set<std::string> keywords = {
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch",
      "char", "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return", "co_yield", "compl", "concept",
      "const", "const_cast", "consteval", "constexpr", "constinit", "continue", "decltype", "default", "delete",
      "do", "double", "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for",
      "friend", "goto", "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not",
      "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "restrict", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw", "true",
      "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "wchar_t", "while", "xor", "xor_eq"};
  if (keywords.count(name)) return "is a C or C++ keyword";
  if (name.size() > 1 && name[0] == '_' && (name[1] == '_' || std::isupper(static_cast<unsigned char>(name[1]))))
    return "is reserved to the implementation (a leading __ or _ and a capital)";
  // The kernel ABI's own names (gdr/kernel_abi.h, gdr/halide_chunked_abi.h).
  static const std::set<std::string> abi = {"gdr_kernel_args", "gdr_kernel_fn", "gdr_decay_kind",
                                            "gdr_state_stores", "gdr_kernel_info_field",
                                            "gdr_halide_chunked_entry", "gdr_halide_chunked_error"};
  if (abi.count(name) || name.rfind("GDR_", 0) == 0) return "is a name of gdr's kernel ABI";
  return "";
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
  return gdr::Status::success();
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
  h.chunked = variant.route == gdr::Route::Chunked;
  if (gdr::Status s = gdr::compiler::object_kernel_info(object, name, &h.info); !s) return s;
  *header = gdr::compiler::kernel_header(h);
  return gdr::Status::success();
}

// --shared 1 and --archive 1: which libraries to link beside the object.
struct Libraries {
  bool shared = false, archive = false;
  size_t so = 0, a = 0;        // their indices in the staged outputs
  std::string halide_abi;      // chunked: gdr's Halide bridge for the target (an archive)
};

// Reads --shared and --archive (both need --emit obj) and, for a chunked
// kernel, finds the Halide bridge they link (--halide-abi, else this gdr's
// own when the target is this machine's architecture) and checks its
// architecture. Usage errors only.
gdr::Status libraries_of(const gdr::tools::Flags& flags, const std::string& emit, bool chunked,
                         const gdr::compiler::Target& target, Libraries* libraries) {
  int64_t shared = 0, archive = 0;
  for (gdr::Status s : {flags.integer("--shared", 0, 1, &shared), flags.integer("--archive", 0, 1, &archive)})
    if (!s) return s;
  libraries->shared = shared != 0;
  libraries->archive = archive != 0;
  if (shared && emit != "obj") return gdr::Status::error("--shared: needs --emit obj");
  if (archive && emit != "obj") return gdr::Status::error("--archive: needs --emit obj");
  if (!chunked || (!shared && !archive)) {
    if (flags.has("--halide-abi")) return gdr::Status::error("--halide-abi: only for a chunked --shared or --archive");
    return gdr::Status::success();
  }
  const std::string arch = gdr::compiler::architecture_name(target.triple);
  std::string path = flags.get("--halide-abi");
  if (path.empty()) {
    if (arch != gdr::compiler::architecture_name(gdr::compiler::host_target().triple))
      return gdr::Status::error("--halide-abi: a chunked " + arch + " library needs gdr's Halide bridge built for " +
                                arch + " (libgdr_halide_abi.a of a runtime built with cmake/toolchains/); give its path");
    path = own_halide_abi();
    if (path.empty())
      return gdr::Status::error("--halide-abi: this gdr-compile finds no libgdr_halide_abi.a beside it; give its path");
  }
  std::string found;
  if (gdr::Status s = gdr::compiler::object_architecture(path, &found); !s) return gdr::Status::error("--halide-abi: " + s.message());
  if (found != arch)
    return gdr::Status::error("--halide-abi " + path + ": built for " + found + ", the target is " + arch);
  // The bridge itself, not another library of the same architecture (its
  // kernel would link and fail to load: an undefined symbol).
  bool bridge = false;
  if (gdr::Status s = gdr::compiler::defines_symbol(path, "gdr_halide_chunked_entry", &bridge); !s)
    return gdr::Status::error("--halide-abi: " + s.message());
  if (!bridge)
    return gdr::Status::error("--halide-abi " + path + ": defines no gdr_halide_chunked_entry (not gdr's Halide "
                              "bridge, libgdr_halide_abi.a)");
  libraries->halide_abi = path;
  return gdr::Status::success();
}

// Stages PREFIX.so and PREFIX.a as asked.
gdr::Status stage_libraries(gdr::support::StagedOutputs& outputs, const std::string& prefix, Libraries* libraries) {
  if (libraries->shared)
    if (gdr::Status s = add_output(outputs, prefix, ".so", &libraries->so); !s) return s;
  if (libraries->archive)
    if (gdr::Status s = add_output(outputs, prefix, ".a", &libraries->a); !s) return s;
  return gdr::Status::success();
}

// Links the staged object (output 0) into the libraries asked for: a shared
// object for gdr::load_kernel, and NAME.a holding the object, so that a
// program links it with gdr::runtime alone; a chunked kernel's libraries
// also hold the Halide runtime for its target and gdr's Halide bridge (each
// .so its own copy: -Bsymbolic binds the library to it).
gdr::Status link_libraries(gdr::support::StagedOutputs& outputs, const std::string& prefix, const std::string& name,
                           const gdr::compiler::Target& target, bool chunked, const Libraries& libraries) {
  if (!libraries.shared && !libraries.archive) return gdr::Status::success();
  const std::string& object = outputs.temporary(0);
  std::unique_ptr<gdr::support::ScratchFile> runtime;
  if (chunked) {
    runtime = std::make_unique<gdr::support::ScratchFile>(object, ".runtime.o");
    if (!runtime->status()) return runtime->status();
    std::string halide_target;
    if (gdr::Status s = gdr::compiler::halide_target_string(target, &halide_target); !s) return s;
    if (gdr::Status s = gdr::compiler::compile_halide_runtime(halide_target, runtime->path()); !s) return s;
  }
  if (libraries.shared) {
    std::vector<std::string> inputs = {object};
    if (chunked) inputs.insert(inputs.end(), {runtime->path(), libraries.halide_abi});
    if (gdr::Status s = gdr::compiler::link_shared_object(inputs, outputs.temporary(libraries.so),
                                                          std::filesystem::path(prefix + ".so").filename());
        !s)
      return gdr::Status::error("--shared: " + s.message());
  }
  if (libraries.archive) {
    std::vector<gdr::compiler::ArchiveInput> members = {{object, name + ".o"}};
    if (chunked) members.insert(members.end(), {{runtime->path(), "halide_runtime.o"}, {libraries.halide_abi, ""}});
    if (gdr::Status s = gdr::compiler::write_static_library(members, outputs.temporary(libraries.a)); !s)
      return gdr::Status::error("--archive: " + s.message());
  }
  return gdr::Status::success();
}

// "--flag: " for the verifier's message about a knob: the knob's own flag
// if given, else --schedule for a schedule knob it set, else the size's
// flag; "" if the message names no knob (the target's vectors, say).
std::string flag_of_verifier_error(const gdr::tools::Flags& flags, const std::string& message) {
  static const struct {
    const char *knob, *flag;
    bool in_schedule;  // --schedule's text sets it too
  } knobs[] = {{"'vector_width'", "--vector-width", true}, {"'v_tile'", "--v-tile", true},
               {"'unroll'", "--unroll", true},             {"'prefetch'", "--prefetch", true},
               {"'sweep_tokens'", "--sweep-tokens", true}, {"'k'", "--K", false},
               {"'v'", "--V", false},                      {"'readouts'", "--readouts", false}};
  for (const auto& k : knobs) {
    if (message.find(k.knob) == std::string::npos) continue;
    if (flags.has(k.flag)) return std::string(k.flag) + ": ";
    if (k.in_schedule && flags.has("--schedule")) return "--schedule: ";
  }
  return "";
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
      spec, gdr::compiler::dialect_default_recurrent(spec.K, target, spec.readouts));
  // --schedule (the tuning database's text, w16-vt64-u1-p2), then each knob's flag.
  if (flags.has("--schedule")) {
    std::string error;
    if (!gdr::compiler::parse_variant_schedule(gdr::Route::Recurrent, flags.get("--schedule"), &variant, &error))
      return usage_error("--schedule: " + error);
  }
  gdr::compiler::RecurrentSchedule& schedule = variant.recurrent;
  for (gdr::Status s : {flags.integer("--vector-width", 1, 1024, &schedule.vector_width),
                        flags.integer("--v-tile", 1, 1 << 20, &schedule.v_tile),
                        flags.integer("--unroll", 1, 1024, &schedule.unroll),
                        flags.integer("--prefetch", 0, 1024, &schedule.prefetch),
                        flags.integer("--sweep-tokens", 1, 1024, &schedule.sweep_tokens)})
    if (!s) return usage_error(s.message());
  // A schedule the verifier refuses (it names the knob) is a bad flag too:
  // refused before any work, as the chunked route's too-wide one is, and
  // named by the flag that set the knob.
  if (gdr::Status s = gdr::compiler::check_recurrent_schedule(spec, schedule, target); !s)
    return usage_error(flag_of_verifier_error(flags, s.message()) + s.message());

  // mlir: the gdr module; llvm, asm: the optimised LLVM IR or the assembly
  // of the same code; obj (object): the object and its header.
  std::string emit;
  if (gdr::Status s = emit_of(flags, &emit); !s) return usage_error(s.message());
  const std::map<std::string, std::pair<const char*, gdr::compiler::RecurrentOutput>> text_outputs = {
      {"llvm", {".ll", gdr::compiler::RecurrentOutput::LlvmIr}},
      {"asm", {".s", gdr::compiler::RecurrentOutput::Assembly}}};
  Libraries libraries;
  if (gdr::Status s = libraries_of(flags, emit, /*chunked=*/false, target, &libraries); !s)
    return usage_error(s.message());

  const std::string prefix = flags.get("--out");
  const std::string name = flags.get("--name", variant.name());
  if (std::string why = why_not_a_kernel_name(name); !why.empty())
    return usage_error("--name: '" + name + "' " + why);
  gdr::support::StagedOutputs outputs;
  if (emit == "mlir") {
    if (gdr::Status s = add_output(outputs, prefix, ".mlir"); !s) return usage_error(s.message());
    // The module the other outputs would lower: verified first, as they are.
    if (gdr::Status s = gdr::compiler::check_recurrent_schedule(spec, schedule, target); !s) return failed(s.message());
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
    for (const char* suffix : {".o", ".h"})
      if (gdr::Status s = add_output(outputs, prefix, suffix); !s) return usage_error(s.message());
    if (gdr::Status s = stage_libraries(outputs, prefix, &libraries); !s) return usage_error(s.message());
    std::vector<char> code;
    if (gdr::Status s = gdr::compiler::compile_recurrent_object(spec, schedule, target, &code); !s)
      return failed(s.message());
    // The code and the CPU features it needs, in one object.
    gdr::support::ScratchFile code_file(outputs.temporary(0), ".code.o");
    if (!code_file.status()) return failed(code_file.status().message());
    if (!(std::ofstream(code_file.path(), std::ios::binary | std::ios::trunc)
              .write(code.data(), static_cast<std::streamsize>(code.size()))))
      return failed("cannot write " + code_file.path());
    // Under another --name: an entry point of that name calling the kernel,
    // with a copy of its whole table.
    gdr::compiler::EntryPoint alias;
    alias.kind = gdr::compiler::EntryPoint::Kind::Alias;
    alias.callee = variant.name();
    if (name != variant.name())
      if (gdr::Status s = gdr::compiler::object_info_table(code, variant.name(), &alias.info); !s)
        return failed(s.message());
    if (gdr::Status s = gdr::compiler::link_aot_object(target, name, {code_file.path()},
                                                       name != variant.name() ? &alias : nullptr,
                                                       outputs.temporary(0));
        !s)
      return failed(s.message());
    std::string header;
    if (gdr::Status s = kernel_header_of(outputs.temporary(0), name, variant, target.triple + " " + target.cpu,
                                         target, &header);
        !s)
      return failed(s.message());
    if (gdr::Status s = outputs.write(1, {header}); !s) return failed(s.message());
    if (gdr::Status s = link_libraries(outputs, prefix, name, target, /*chunked=*/false, libraries); !s)
      return failed(s.message());
  }
  if (gdr::Status s = outputs.commit(); !s) return failed(s.message());
  std::printf("%s\n", name.c_str());
  return 0;
}

int compile_chunked(const gdr::tools::Flags& flags, Args& args, const gdr::compiler::KernelSpec& form) {
  const int64_t K = form.K, V = form.V;
  gdr::compiler::Target target;
  if (gdr::Status s = target_of(flags, &target); !s) return usage_error(s.message());
  std::string halide_target;
  if (gdr::Status s = gdr::compiler::halide_target_string(target, &halide_target); !s)
    return usage_error("--target: " + s.message());
  const int target_floats = target.vector_bits / 32;
  gdr::compiler::Variant variant = gdr::compiler::default_variant(gdr::Route::Chunked, form, 0, target);
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
  const gdr::compiler::ChunkedSpec spec = gdr::compiler::chunked_spec(variant);
  const std::string name = args.count("--name") ? args["--name"] : variant.name();
  if (std::string why = why_not_a_kernel_name(name); !why.empty())
    return usage_error("--name: '" + name + "' " + why);
  std::string emit;
  if (gdr::Status s = emit_of(flags, &emit); !s) return usage_error(s.message());
  if (emit == "mlir")
    return usage_error("--emit mlir: the chunked route is a Halide pipeline and has no gdr module; "
                       "give llvm, asm or obj");
  int64_t assembly = 0;
  if (gdr::Status s = flags.integer("--asm", 0, 1, &assembly); !s) return usage_error(s.message());
  if (assembly && emit != "obj") return usage_error("--asm: needs --emit obj (--emit asm writes only the assembly)");
  Libraries libraries;
  if (gdr::Status s = libraries_of(flags, emit, /*chunked=*/true, target, &libraries); !s)
    return usage_error(s.message());
  const std::string& prefix = args["--out"];
  // The bridge is read into the library or archive: never an output.
  for (const char* suffix : {".o", ".h", ".s", ".ll", ".so", ".a"})
    if (!libraries.halide_abi.empty() && gdr::support::same_file(prefix + suffix, libraries.halide_abi))
      return usage_error("--out " + prefix + suffix + " is the --halide-abi file " + libraries.halide_abi +
                         " (gdr-compile never overwrites an input)");
  gdr::support::StagedOutputs outputs;
  gdr::compiler::ChunkedFiles files;
  auto stage = [&](const char* suffix, std::string* path) {
    size_t index = 0;
    gdr::Status s = add_output(outputs, prefix, suffix, &index);
    if (s) *path = outputs.temporary(index);
    return s;
  };
  gdr::Status staged = gdr::Status::success();
  if (emit == "obj") {
    staged = stage(".o", &files.object);
    std::string header;  // written from the object's table, index 1
    if (staged) staged = stage(".h", &header);
    if (staged && assembly) staged = stage(".s", &files.assembly);
    if (staged) staged = stage_libraries(outputs, prefix, &libraries);
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
    if (gdr::Status s = link_libraries(outputs, prefix, name, target, /*chunked=*/true, libraries); !s)
      return failed(s.message());
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
  if (gdr::tools::answered_help_or_version(flags, kUsage, "gdr-compile")) return gdr::tools::kExitOk;
  if (gdr::Status s = gdr::tools::take_verbosity_from_environment(); !s) return usage_error(s.message());
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
  gdr::compiler::KernelSpec spec{K, V};
  const std::string decay = flags.get("--decay", "channel");
  if (decay != "channel" && decay != "scalar")
    return usage_error("--decay: expected channel or scalar, got '" + decay + "'");
  spec.decay = decay == "scalar" ? gdr::DecayKind::Scalar : gdr::DecayKind::Channel;
  if (gdr::Status s = flags.integer("--readouts", 1, gdr::compiler::kMaxGeneratedReadouts, &spec.readouts); !s)
    return usage_error(s.message());
  return route == "recurrent" ? compile_recurrent(flags, spec) : compile_chunked(flags, args, spec);
}
