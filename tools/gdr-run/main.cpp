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
#include <set>
#include <string>
#include <vector>

#include "../common/exit_codes.h"
#include "../common/flags.h"
#include "../common/implementations.h"
#include "../common/npy.h"
#include "../common/version.h"
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
    "               [--threads N] [--explain 1: print which route and schedule ran]\n"
    "  Shapes decide the form: query has Hq heads, key Hk, value H (Hk divides H; Hq divides\n"
    "  H or is a multiple of it), decay of rank 4 is channelwise, of rank 3 scalar; states\n"
    "  are [N or pool rows, H, K, V]; out gets max(Hq, H) heads in the layout given.\n"
    "       gdr-run --version\n";

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "gdr-run: %s\n", message.c_str());
  return code;
}
int usage_error(const std::string& message) { return fail(gdr::tools::kExitUsage, message); }
int failed(const std::string& message) { return fail(gdr::tools::kExitFailed, message); }

using Shape = std::vector<int64_t>;
std::string str(const Shape& s) { return gdr::npy::shape_string(s); }
std::string num(int64_t v) { return std::to_string(v); }

// validate()'s messages name the fields of gdr::Tensors; gdr-run's name the
// flag and its file instead where the message starts with one flag's
// field: "cu_seqlens: the last offset ..." becomes "--cu-seqlens c.npy: the
// last offset ...", "in place: ..." "--in-place 1: ...".
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
      {"out", "--out"},
      {"in place", "--in-place"}};
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

}  // namespace

int main(int argc, char** argv) {
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
  if (flags.help()) {
    std::fputs(kUsage, stdout);
    std::fputs(gdr::tools::kExitCodesHelp, stdout);
    return gdr::tools::kExitOk;
  }
  if (flags.version()) {
    std::fputs(gdr::tools::version_text("gdr-run").c_str(), stdout);
    return gdr::tools::kExitOk;
  }
  for (const char* f : required)
    if (!flags.has(f)) return usage_error(std::string("missing ") + f + " (see --help)");
  std::map<std::string, std::string> args = flags.all();
  auto named = [&](const std::string& flag) { return flag + " " + args[flag]; };

  gdr::Options options;
  if (args.count("--route") && !gdr::parse_route(args["--route"], &options.route))
    return usage_error("--route: unknown route '" + args["--route"] + "'");
  int64_t threads = 0, explain = 0, in_place = 0;
  for (gdr::Status s : {flags.integer("--threads", 1, 1024, &threads), flags.integer("--explain", 0, 1, &explain),
                        flags.integer("--in-place", 0, 1, &in_place)})
    if (!s) return usage_error(s.message());
  options.threads = static_cast<int>(threads);
  gdr::Layout layout = gdr::Layout::HeadMajor;
  if (args.count("--layout")) {
    if (args["--layout"] == "bthd") layout = gdr::Layout::TokenMajor;
    else if (args["--layout"] != "bhtd")
      return usage_error("--layout: expected bhtd or bthd, got '" + args["--layout"] + "'");
  }
  const bool token_major = layout == gdr::Layout::TokenMajor;
  if (args.count("--initial-state-indices") && !args.count("--initial-state"))
    return usage_error(named("--initial-state-indices") + ": needs --initial-state, the pool it indexes");
  if (gdr::Status s = gdr::tools::install_all_routes(); !s) return usage_error(s.message());

  // Outputs never replace an input, nor each other: checked before any work,
  // and both are staged so that a failed run leaves every file as it was.
  // The one exception: with --in-place 1, --final-state may be the
  // --initial-state file, which is then the one pool read and written.
  bool same_pool = false;
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
      return usage_error(named(output) + " is the same file as " + named(input) +
                         ": gdr-run never overwrites an input" +
                         (std::string(input) == "--initial-state" ? " (but with --in-place 1)" : ""));
    }
    if (gdr::Status s = outputs.add(named(output), args[output]); !s) return usage_error(s.message());
  }

  std::map<std::string, gdr::npy::Array> in;
  for (const char* f : float_inputs)
    if (args.count(f))
      if (gdr::Status s = gdr::npy::read(args[f], &in[f]); !s) return failed(named(f) + ": " + s.message());
  std::map<std::string, gdr::npy::IntArray> ints;
  for (const char* f : int_inputs)
    if (args.count(f)) {
      if (gdr::Status s = gdr::npy::read(args[f], &ints[f]); !s) return failed(named(f) + ": " + s.message());
      if (ints[f].shape.size() != 1)
        return failed(named(f) + ": expected rank 1, got shape " + str(ints[f].shape));
    }

  // Sizes: B, T, Hq and K from the query, H and V from the value; every
  // other file must agree with them.
  const char* order = token_major ? "T, heads" : "heads, T";
  const std::string layout_text = std::string(" (--layout ") + gdr::layout_name(layout) + ")";
  const Shape& qs = in["--query"].shape;
  if (qs.size() != 4)
    return failed(named("--query") + ": expected rank 4 [B, " + order + ", K]" + layout_text +
                  ", got shape " + str(qs));
  const Shape& vs = in["--value"].shape;
  if (vs.size() != 4)
    return failed(named("--value") + ": expected rank 4 [B, " + order + ", V]" + layout_text +
                  ", got shape " + str(vs));
  const int64_t B = qs[0], T = qs[token_major ? 1 : 2], Hq = qs[token_major ? 2 : 1], K = qs[3];
  const int64_t H = vs[token_major ? 2 : 1], V = vs[3];
  // A tensor of `heads` heads of rows `width` wide (0: rank 3) in the layout.
  auto tensor = [&](int64_t heads, int64_t width) {
    Shape s = token_major ? Shape{B, T, heads} : Shape{B, heads, T};
    if (width) s.push_back(width);
    return s;
  };
  auto mismatch = [&](const std::string& flag, const Shape& want, const std::string& what) {
    return failed(named(flag) + ": shape " + str(in[flag].shape) + " does not match the expected " +
                  str(want) + " (" + what + "from --query and --value" + layout_text + ")");
  };
  if (vs != tensor(H, V)) return mismatch("--value", tensor(H, V), "B and T ");
  const Shape& ks = in["--key"].shape;
  const int64_t Hk = ks.size() == 4 ? ks[token_major ? 2 : 1] : 0;
  if (ks.size() != 4 || ks != tensor(Hk, K)) return mismatch("--key", tensor(Hk, K), "");
  // Head groups: a zero head count is validate()'s to name (H must be positive).
  if (H > 0) {
    if (Hk == 0 || H % Hk != 0)
      return failed(named("--key") + ": has " + num(Hk) + " heads, which does not divide value's " + num(H));
    if (Hq == 0 || (H % Hq != 0 && Hq % H != 0))
      return failed(named("--query") + ": has " + num(Hq) + " heads; neither it nor value's " + num(H) +
                    " is a multiple of the other");
  }
  const Shape& ds = in["--decay"].shape;
  if (ds.size() != 4 && ds.size() != 3)
    return failed(named("--decay") + ": expected rank 4 (channelwise, [B, " + order + ", K]) or 3 (scalar, [B, " +
                  order + "])" + layout_text + ", got shape " + str(ds));
  const gdr::DecayKind decay = ds.size() == 3 ? gdr::DecayKind::Scalar : gdr::DecayKind::Channel;
  const Shape decay_shape = tensor(H, decay == gdr::DecayKind::Scalar ? 0 : K);
  if (ds != decay_shape)
    return mismatch("--decay", decay_shape,
                    decay == gdr::DecayKind::Scalar ? "scalar decay, " : "channelwise decay, ");
  if (in["--beta"].shape != tensor(H, 0)) return mismatch("--beta", tensor(H, 0), "");

  // Sequences: B, or the offsets' count less one.
  int64_t N = B;
  if (args.count("--cu-seqlens")) {
    const int64_t offsets = ints["--cu-seqlens"].shape[0];
    if (B != 1)
      return failed(named("--cu-seqlens") + ": a variable-length batch needs B = 1, but " + named("--query") +
                    " has B = " + num(B));
    if (offsets < 1) return failed(named("--cu-seqlens") + ": needs at least one offset (0), got none");
    N = offsets - 1;
  }
  const std::string sequences = num(N) + (N == 1 ? " sequence" : " sequences") +
                                (args.count("--cu-seqlens") ? " (--cu-seqlens)" : " (B)");
  for (const char* f : {"--initial-state-indices", "--final-state-indices"})
    if (args.count(f) && ints[f].shape[0] != N)
      return failed(named(f) + ": has " + num(ints[f].shape[0]) + " entries, but there are " + sequences);

  // The state pools: [rows, H, K, V], rows = N unless indices say where.
  auto pool_shape_error = [&](const std::string& flag, const Shape& s, bool indexed) -> std::string {
    if (s.size() == 4 && s[1] == H && s[2] == K && s[3] == V && (indexed || s[0] == N)) return "";
    return named(flag) + ": shape " + str(s) + " does not match the expected " +
           (indexed ? "(S, " + num(H) + ", " + num(K) + ", " + num(V) + ") for a pool of S rows"
                    : str({N, H, K, V}) + " (" + sequences + ", H from --value, K from --query, V from --value)");
  };
  const bool initial_indexed = args.count("--initial-state-indices") != 0;
  const bool final_indexed = args.count("--final-state-indices") != 0;
  int64_t initial_rows = N;
  if (args.count("--initial-state")) {
    const Shape& s = in["--initial-state"].shape;
    if (std::string e = pool_shape_error("--initial-state", s, initial_indexed); !e.empty()) return failed(e);
    initial_rows = s[0];
  }
  // The final pool: the initial one in place; with --final-state-indices the
  // --final-state file as it is (rows no sequence writes keep their
  // contents), or if it does not exist yet a pool of zeros as large as the
  // initial one; else N rows.
  gdr::npy::Array final_pool;
  const gdr::npy::Array* initial = args.count("--initial-state") ? &in["--initial-state"] : nullptr;
  if (same_pool) {
    if (final_indexed && !initial_indexed && initial_rows != N)
      return failed(pool_shape_error("--initial-state", initial->shape, false) + " (--in-place 1 with " +
                    named("--final-state-indices") + " alone)");
  } else if (final_indexed) {
    std::error_code ec;
    if (std::filesystem::exists(args["--final-state"], ec)) {
      if (gdr::Status s = gdr::npy::read(args["--final-state"], &final_pool); !s)
        return failed(named("--final-state") + ": " + s.message() +
                      " (read as the pool --final-state-indices writes into)");
      if (std::string e = pool_shape_error("--final-state", final_pool.shape, true); !e.empty())
        return failed(e + " (the existing pool --final-state-indices writes into)");
    } else {
      final_pool.shape = {initial_rows, H, K, V};
    }
  } else {
    final_pool.shape = {N, H, K, V};
  }

  const int64_t Hout = std::max(Hq, H);
  gdr::npy::Array out{tensor(Hout, V), {}};
  gdr::Tensors t;
  t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;
  t.key_heads = Hk;
  t.query_heads = Hq;
  t.layout = layout;
  t.decay_kind = decay;
  t.in_place = in_place == 1;
  if (args.count("--cu-seqlens")) t.cu_seqlens = ints["--cu-seqlens"].indices();
  if (initial_indexed) {
    t.initial_state_indices = ints["--initial-state-indices"].indices();
    t.initial_state_slots = initial_rows;
  }
  const Shape& final_shape = same_pool ? initial->shape : final_pool.shape;
  if (final_indexed) {
    t.final_state_indices = ints["--final-state-indices"].indices();
    t.final_state_slots = final_shape[0];
  }
  // Sizes first: the output buffers are allocated from them.
  if (gdr::Status s = gdr::validate_sizes(t); !s) return failed(with_flags(s.message(), args));
  out.data.resize(gdr::tensor_sizes(t).out);
  if (!same_pool && final_pool.data.empty()) final_pool.data.assign(gdr::tensor_sizes(t).final_state, 0.f);
  t.query = in["--query"].data.data();
  t.key = in["--key"].data.data();
  t.value = in["--value"].data.data();
  t.decay = in["--decay"].data.data();
  t.beta = in["--beta"].data.data();
  t.initial_state = initial ? initial->data.data() : nullptr;
  t.out = out.data.data();
  gdr::npy::Array& written = same_pool ? in["--initial-state"] : final_pool;
  t.final_state = written.data.data();

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
