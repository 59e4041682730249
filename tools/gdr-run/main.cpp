// gdr-run: runs the op on .npy files, for debugging and end-to-end checks.
// On any error: one line naming the file or argument and the reason, and no
// output file written or changed. An output that is an input (or the other
// output) is refused before any work. Exit code 2 for a bad command line
// (outputs included), 1 for an input file or the op failing (exit_codes.h).
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <set>
#include <string>

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
    "               --initial-state s.npy --out out.npy --final-state fs.npy\n"
    "               [--route auto|recurrent|chunked|chunked-autoschedule|reference|\n"
    "                        baseline-two-pass|baseline-chunked]\n"
    "               [--threads N] [--explain 1: print which route and schedule ran]\n"
    "       gdr-run --version\n";

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "gdr-run: %s\n", message.c_str());
  return code;
}
int usage_error(const std::string& message) { return fail(gdr::tools::kExitUsage, message); }
int failed(const std::string& message) { return fail(gdr::tools::kExitFailed, message); }

}  // namespace

int main(int argc, char** argv) {
  const char* files[] = {"--query", "--key", "--value", "--decay", "--beta", "--initial-state",
                         "--out", "--final-state"};
  gdr::tools::Flags flags;
  std::set<std::string> known = {"--route", "--threads", "--explain"};
  known.insert(std::begin(files), std::end(files));
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
  for (const char* f : files)
    if (!flags.has(f)) return usage_error(std::string("missing ") + f + " (see --help)");
  std::map<std::string, std::string> args = flags.all();

  gdr::Options options;
  if (args.count("--route") && !gdr::parse_route(args["--route"], &options.route))
    return usage_error("--route: unknown route '" + args["--route"] + "'");
  int64_t threads = 0;
  if (gdr::Status s = flags.integer("--threads", 1, 1024, &threads); !s) return usage_error(s.message());
  options.threads = static_cast<int>(threads);
  int64_t explain = 0;
  if (gdr::Status s = flags.integer("--explain", 0, 1, &explain); !s) return usage_error(s.message());
  if (gdr::Status s = gdr::tools::install_all_routes(); !s) return usage_error(s.message());

  // Outputs never replace an input, nor each other: checked before any work,
  // and both are staged so that a failed run leaves every file as it was.
  gdr::support::StagedOutputs outputs;
  for (const char* output : {"--out", "--final-state"}) {
    for (int i = 0; i < 6; ++i)
      if (gdr::support::same_file(args[output], args[files[i]]))
        return usage_error(std::string(output) + " " + args[output] + " is the same file as " +
                           files[i] + " " + args[files[i]] + ": gdr-run never overwrites an input");
    if (gdr::Status s = outputs.add(std::string(output) + " " + args[output], args[output]); !s)
      return usage_error(s.message());
  }

  std::map<std::string, gdr::npy::Array> in;
  for (int i = 0; i < 6; ++i) {
    if (gdr::Status s = gdr::npy::read(args[files[i]], &in[files[i]]); !s)
      return failed(std::string(files[i]) + " " + args[files[i]] + ": " + s.message());
  }
  // Sizes come from the query; every other file must agree with it.
  const auto& qs = in["--query"].shape;
  if (qs.size() != 4)
    return failed("--query " + args["--query"] + ": expected rank 4 [B, H, T, K], got shape " +
                gdr::npy::shape_string(qs));
  const auto& vs = in["--value"].shape;
  if (vs.size() != 4)
    return failed("--value " + args["--value"] + ": expected rank 4 [B, H, T, V], got shape " +
                gdr::npy::shape_string(vs));
  const int64_t B = qs[0], H = qs[1], T = qs[2], K = qs[3], V = vs[3];
  const std::map<std::string, std::vector<int64_t>> expected = {
      {"--key", {B, H, T, K}}, {"--value", {B, H, T, V}}, {"--decay", {B, H, T, K}},
      {"--beta", {B, H, T}},   {"--initial-state", {B, H, K, V}}};
  for (const auto& [flag, shape] : expected)
    if (in[flag].shape != shape)
      return failed(flag + " " + args[flag] + ": shape " + gdr::npy::shape_string(in[flag].shape) +
                  " does not match the expected " + gdr::npy::shape_string(shape) +
                  " (from --query and --value)");

  gdr::npy::Array out{{B, H, T, V}, {}}, final_state{{B, H, K, V}, {}};
  out.data.resize(B * H * T * V);
  final_state.data.resize(B * H * K * V);
  gdr::Tensors t;
  t.query = in["--query"].data.data();
  t.key = in["--key"].data.data();
  t.value = in["--value"].data.data();
  t.decay = in["--decay"].data.data();
  t.beta = in["--beta"].data.data();
  t.initial_state = in["--initial-state"].data.data();
  t.out = out.data.data();
  t.final_state = final_state.data.data();
  t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;

  if (gdr::Status s = gdr::run(t, options); !s) return failed(s.message());
  if (explain == 1)
    std::printf("gdr-run: %s ran %s\n", gdr::route_name(options.route),
                gdr::tools::explain_route(options.route, t, options.threads).c_str());
  size_t index = 0;
  for (const gdr::npy::Array* a : {&out, &final_state})
    if (gdr::Status s = outputs.write(index++, {gdr::npy::header_bytes(a->shape), gdr::npy::data_bytes(*a)}); !s)
      return failed(s.message());
  if (gdr::Status s = outputs.commit(); !s) return failed(s.message());
  return gdr::tools::kExitOk;
}
