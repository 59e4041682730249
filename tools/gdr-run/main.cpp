// gdr-run: runs the op on .npy files, for debugging and end-to-end checks.
// The call's form comes from the files' shapes (and --layout): head counts,
// scalar or channelwise decay, sequences, state pools. On any error: one
// line naming the file or argument and the reason, and no output file
// written or changed. An output that is an input (or the other output) is
// refused before any work, except --final-state naming --initial-state with
// --in-place 1 (the pool is then updated in place, through a temporary
// renamed over it). Exit code 2 for a bad command line (outputs included),
// 1 for an input file or the op failing (exit_codes.h).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "../common/error_line.h"
#include "../common/exit_codes.h"
#include "../common/flags.h"
#include "../common/implementations.h"
#include "../common/npy.h"
#include "gdr/array_shapes.h"
#include "gdr/runtime.h"
#include "gdr/support/staged_outputs.h"

namespace {

const char kUsage[] =
    "usage: gdr-run --query q.npy --key k.npy --value v.npy --decay d.npy --beta b.npy\n"
    "               [--initial-state s.npy (absent: zeros)] --out out.npy --final-state fs.npy\n"
    "               [--layout bhtd|bthd: [B, heads, T, D] (default) or [B, T, heads, D]]\n"
    "               [--cu-seqlens c.npy: N + 1 offsets (int32 or int64), B = 1]\n"
    "               [--initial-state-indices i.npy] [--final-state-indices f.npy: per\n"
    "                sequence, the row of the state pool (-1: zeros for the initial state)]\n"
    "               [--in-place 1: --final-state may be the --initial-state file, updated]\n"
    "               [--route auto|recurrent|chunked|chunked-autoschedule|reference|\n"
    "                        baseline-two-pass|baseline-chunked]\n"
    "               [--threads N (1..1024; absent: every CPU it may use, fewer for tiny calls)]\n"
    "               [--explain 1: print which route and schedule ran]\n"
    "  Shapes decide the form: query has Hq heads, key Hk, value H (Hk divides H; Hq divides\n"
    "  H or is a multiple of it), decay of rank 4 is channelwise, of rank 3 scalar; states\n"
    "  are [N or pool rows, H, K, V]; out gets max(Hq, H) heads in the layout given.\n"
    "  Files: .npy, C order, little-endian; tensors float32 (<f4), offsets and indices\n"
    "  int32 or int64. The route defaults to auto. With --final-state-indices an existing\n"
    "  --final-state file is the pool written into (rows no sequence writes keep their\n"
    "  contents); a new one is zeros as large as the initial pool, else N rows.\n"
    "  Environment: GDR_CACHE_DIR (kernel cache folder; off: none), GDR_VERBOSE (0..2).\n"
    "       gdr-run --version\n";

int fail(int code, const std::string& message) { return gdr::tools::error_line("gdr-run", code, message); }
int usage_error(const std::string& message) { return fail(gdr::tools::kExitUsage, message); }
int failed(const std::string& message) { return fail(gdr::tools::kExitFailed, message); }

// validate()'s messages name the fields of gdr::Tensors; gdr-run's name the
// flag and its file instead where the message starts with one flag's
// field: "cu_seqlens: the last offset ..." becomes "--cu-seqlens c.npy: the
// last offset ...".
std::string with_flags(const std::string& message, const std::map<std::string, std::string>& args) {
  static const std::pair<const char*, const char*> fields[] = {
      {"initial_state_indices", "--initial-state-indices"},
      {"final_state_indices", "--final-state-indices"},
      {"initial_state", "--initial-state"},
      {"final_state", "--final-state"},
      {"cu_seqlens", "--cu-seqlens"},
      {"key_heads", "--key"},
      {"query_heads", "--query"},
      {"query", "--query"},
      {"key", "--key"},
      {"value", "--value"},
      {"decay", "--decay"},
      {"beta", "--beta"},
      {"out", "--out"}};
  for (const auto& [field, flag] : fields) {
    const size_t n = std::char_traits<char>::length(field);
    if (message.compare(0, n, field) != 0) continue;
    if (n < message.size() && (std::isalnum(static_cast<unsigned char>(message[n])) || message[n] == '_'))
      continue;  // a longer field
    auto it = args.find(flag);
    if (it == args.end()) return message;
    // "field: why" and "field why" lose the field, "field[i] = ..." keeps it.
    std::string rest = message;
    if (message.compare(n, 2, ": ") == 0) rest = message.substr(n + 2);
    else if (message.compare(n, 1, " ") == 0) rest = message.substr(n + 1);
    return std::string(flag) + " " + it->second + ": " + rest;
  }
  return message;
}

int run(int argc, char** argv) {
  // Float tensors (inputs first), then the integer inputs.
  const char* required[] = {"--query", "--key", "--value", "--decay", "--beta", "--out", "--final-state"};
  const char* float_inputs[] = {"--query", "--key", "--value", "--decay", "--beta", "--initial-state"};
  const char* int_inputs[] = {"--cu-seqlens", "--initial-state-indices", "--final-state-indices"};
  gdr::tools::Flags flags;
  std::set<std::string> known = {"--route", "--threads", "--explain", "--layout", "--in-place", "--out",
                                 "--final-state"};
  known.insert(std::begin(float_inputs), std::end(float_inputs));
  known.insert(std::begin(int_inputs), std::end(int_inputs));
  if (gdr::Status s = gdr::tools::Flags::parse(argc, argv, known, &flags); !s)
    return usage_error(s.message());
  if (gdr::tools::answered_help_or_version(flags, kUsage, "gdr-run")) return gdr::tools::kExitOk;
  for (const char* f : required)
    if (!flags.has(f)) return usage_error(std::string("missing ") + f + " (see --help)");
  std::map<std::string, std::string> args = flags.all();
  auto named = [&](const std::string& flag) { return flag + " " + args[flag]; };

  gdr::Options options;
  if (args.count("--route") && !gdr::parse_route(args["--route"], &options.route))
    return usage_error("--route: unknown route '" + args["--route"] + "' (see --help)");
  int64_t threads = 0, explain = 0, in_place = 0;
  for (gdr::Status s : {flags.integer("--threads", 1, 1024, &threads), flags.integer("--explain", 0, 1, &explain),
                        flags.integer("--in-place", 0, 1, &in_place)})
    if (!s) return usage_error(s.message());
  options.threads = static_cast<int>(threads);
  gdr::Layout layout = gdr::Layout::HeadMajor;
  if (args.count("--layout") && !gdr::parse_layout(args["--layout"], &layout))
    return usage_error("--layout: expected bhtd or bthd, got '" + args["--layout"] + "'");
  if (args.count("--initial-state-indices") && !args.count("--initial-state"))
    return usage_error(named("--initial-state-indices") + ": needs --initial-state, the pool it indexes");
  if (gdr::Status s = gdr::tools::install_all_routes(); !s) return usage_error(s.message());

  // Outputs never replace an input, nor each other: checked before any work,
  // and both are staged so that a failed run leaves every file as it was.
  // The one exception: with --in-place 1, --final-state may be the
  // --initial-state file, which is then the one pool read and written.
  bool same_pool = false;
  const bool final_indexed = args.count("--final-state-indices") != 0;
  // With final indices, an existing --final-state is the pool written into.
  std::error_code exists_error;
  const bool final_pool_exists = final_indexed && std::filesystem::exists(args["--final-state"], exists_error);
  gdr::support::StagedOutputs outputs;
  for (const char* output : {"--out", "--final-state"}) {
    std::vector<const char*> inputs(std::begin(float_inputs), std::end(float_inputs));
    inputs.insert(inputs.end(), std::begin(int_inputs), std::end(int_inputs));
    for (const char* input : inputs) {
      if (!args.count(input) || !gdr::support::same_file(args[output], args[input])) continue;
      if (std::string(output) == "--final-state" && std::string(input) == "--initial-state" && in_place == 1) {
        same_pool = true;
        continue;
      }
      const bool pool = std::string(output) == "--final-state" && std::string(input) == "--initial-state";
      return usage_error(named(output) + " is the same file as " + named(input) +
                         ": gdr-run never overwrites an input" + (pool ? " (but with --in-place 1)" : ""));
    }
    // A pool read and then written (the one pool in place, or an existing
    // --final-state that --final-state-indices writes into) is written
    // where it is, through a symbolic link that names it (a rename over the
    // link would replace the link and leave the pool as it was).
    std::string target = args[output];
    if (std::string(output) == "--final-state" && (same_pool || final_pool_exists)) {
      std::error_code ec, ec_initial;
      const std::filesystem::path resolved = std::filesystem::canonical(target, ec);
      if (!ec) target = resolved.string();
      // Two hard links of one file: the rename would replace one name only.
      if (same_pool && !ec && std::filesystem::canonical(args["--initial-state"], ec_initial) != resolved &&
          !ec_initial)
        return usage_error(named(output) + " and " + named("--initial-state") +
                           " are two names (hard links) of one file: in place, give the same name for both "
                           "(the pool is replaced through a new file, which would part the names)");
    }
    if (gdr::Status s = outputs.add(named(output), target); !s) return usage_error(s.message());
  }

  std::map<std::string, gdr::npy::Array> in;
  for (const char* f : float_inputs)
    if (args.count(f))
      if (gdr::Status s = gdr::npy::read(args[f], &in[f]); !s) return failed(named(f) + ": " + s.message());
  std::map<std::string, gdr::npy::IntArray> ints;
  for (const char* f : int_inputs)
    if (args.count(f))
      if (gdr::Status s = gdr::npy::read(args[f], &ints[f]); !s) return failed(named(f) + ": " + s.message());

  // The form from the shapes. With --final-state-indices an existing
  // --final-state file is the pool written into (rows no sequence writes
  // keep their contents); if it does not exist yet the pool is zeros.
  gdr::ArrayShapes shapes;
  shapes.query = in["--query"].shape;
  shapes.key = in["--key"].shape;
  shapes.value = in["--value"].shape;
  shapes.decay = in["--decay"].shape;
  shapes.beta = in["--beta"].shape;
  gdr::npy::Array* initial = args.count("--initial-state") ? &in["--initial-state"] : nullptr;
  if (initial) shapes.initial_state = initial->shape;
  if (args.count("--cu-seqlens")) shapes.cu_seqlens = ints["--cu-seqlens"].shape;
  if (args.count("--initial-state-indices")) shapes.initial_state_indices = ints["--initial-state-indices"].shape;
  if (final_indexed) shapes.final_state_indices = ints["--final-state-indices"].shape;
  shapes.layout = layout;
  shapes.in_place = in_place == 1;
  shapes.final_is_initial = same_pool;
  gdr::npy::Array final_pool;
  if (!same_pool && final_pool_exists) {
    if (gdr::Status s = gdr::npy::read(args["--final-state"], &final_pool); !s)
      return failed(named("--final-state") + ": " + s.message() +
                    " (read as the pool --final-state-indices writes into)");
    shapes.final_state = final_pool.shape;
  }
  // Arguments by flag and file; the layout and in-place flags by value.
  auto argument = [&](const std::string& field) -> std::string {
    if (field == "layout") return std::string("--layout ") + gdr::layout_name(layout);
    if (field == "in_place") return "--in-place 1";
    std::string flag = "--" + field;
    std::replace(flag.begin(), flag.end(), '_', '-');
    return args.count(flag) ? named(flag) : flag;
  };
  gdr::ShapedCall call;
  if (gdr::Status s = gdr::shape_call(shapes, argument, &call); !s) return failed(with_flags(s.message(), args));
  gdr::Tensors& t = call.tensors;
  gdr::npy::Array out{call.out, {}};
  final_pool.shape = call.final_state;
  if (shapes.cu_seqlens) t.cu_seqlens = ints["--cu-seqlens"].indices();
  if (shapes.initial_state_indices) t.initial_state_indices = ints["--initial-state-indices"].indices();
  if (final_indexed) t.final_state_indices = ints["--final-state-indices"].indices();
  out.data.resize(gdr::tensor_sizes(t).out);
  if (!same_pool && final_pool.data.empty()) final_pool.data.assign(gdr::tensor_sizes(t).final_state, 0.f);
  // A tensor of no elements is still given (a pool of 0 slots that every
  // index -1 skips): its own non-null address, which the runtime never reads.
  auto data_of = [](gdr::npy::Array& a) {
    if (a.data.capacity() == 0) a.data.reserve(1);
    return a.data.data();
  };
  t.query = data_of(in["--query"]);
  t.key = data_of(in["--key"]);
  t.value = data_of(in["--value"]);
  t.decay = data_of(in["--decay"]);
  t.beta = data_of(in["--beta"]);
  t.initial_state = initial ? data_of(*initial) : nullptr;
  t.out = data_of(out);
  gdr::npy::Array& written = same_pool ? in["--initial-state"] : final_pool;
  t.final_state = data_of(written);

  if (gdr::Status s = gdr::validate(t); !s) return failed(with_flags(s.message(), args));
  if (gdr::Status s = gdr::run(t, options); !s) return failed(with_flags(s.message(), args));
  if (explain == 1)
    std::printf("gdr-run: %s ran %s\n", gdr::route_name(options.route),
                gdr::tools::explain_route(options.route, t, options.threads).c_str());
  size_t index = 0;
  for (const gdr::npy::Array* a : {&out, &written})
    if (gdr::Status s = outputs.write(index++, {gdr::npy::header_bytes(a->shape), gdr::npy::data_bytes(*a)}); !s)
      return failed(s.message());
  if (gdr::Status s = outputs.commit(); !s) return failed(s.message());
  return gdr::tools::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  // Out of memory is a failure like any other: one line, and the staged
  // outputs' temporaries go with the stack (std::terminate would leave them).
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    return failed("out of memory (the call's tensors do not fit)");
  }
}
