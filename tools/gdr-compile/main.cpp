// gdr-compile: ahead-of-time compilation of the chunked prefill to an object
// file and a C header, and of the one Halide runtime object a program links.
//
//   gdr-compile --K 128 --V 128 --schedule c64-w16 --target host \
//               --out dir/kernel [--name fn] [--scheduler hand|adams2019]
//   gdr-compile --runtime dir/halide_runtime.o --target host
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "gdr/compiler/chunked.h"

namespace {

const char kUsage[] =
    "usage: gdr-compile --K N --V N [--schedule c64-w16] [--target host|<halide target>]\n"
    "                   [--scheduler hand|adams2019] --out PATH_PREFIX [--name FUNCTION]\n"
    "                   [--asm 1: also write PATH_PREFIX.s]\n"
    "       gdr-compile --runtime OBJECT [--target host|<halide target>]\n";

int fail(const std::string& message) {
  std::fprintf(stderr, "gdr-compile: %s\n", message.c_str());
  return 2;
}

bool parse_size(const std::string& s, int64_t* out) {
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || v <= 0) return false;
  *out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    static const char* known[] = {"--K", "--V", "--schedule", "--target", "--scheduler",
                                  "--out", "--name", "--runtime", "--asm"};
    bool ok = false;
    for (const char* k : known) ok = ok || flag == k;
    if (!ok) return fail("unknown argument " + flag + " (see --help)");
    if (i + 1 >= argc) return fail(flag + " needs a value");
    args[flag] = argv[++i];
  }
  const std::string target = args.count("--target") ? args["--target"] : "host";
  if (args.count("--runtime")) {
    gdr::Status s = gdr::compiler::compile_halide_runtime(target, args["--runtime"]);
    return s ? 0 : fail(s.message());
  }

  gdr::compiler::ChunkedSpec spec;
  if (!args.count("--K") || !parse_size(args["--K"], &spec.K))
    return fail("--K: expected a positive integer");
  if (!args.count("--V") || !parse_size(args["--V"], &spec.V))
    return fail("--V: expected a positive integer");
  if (args.count("--schedule")) {
    std::string error;
    if (!gdr::schedules::parse_schedule(args["--schedule"], &spec.schedule, &error))
      return fail("--schedule: " + error);
  }
  if (args.count("--scheduler")) {
    const std::string& s = args["--scheduler"];
    if (s == "hand") spec.scheduler = gdr::compiler::Scheduler::Hand;
    else if (s == "adams2019") spec.scheduler = gdr::compiler::Scheduler::Adams2019;
    else return fail("--scheduler: expected hand or adams2019, got '" + s + "'");
  }
  if (!args.count("--out")) return fail("--out: missing output path prefix");
  const std::string name =
      args.count("--name") ? args["--name"] : gdr::compiler::chunked_kernel_name(spec);
  const bool with_assembly = args.count("--asm") && args["--asm"] == "1";
  gdr::Status s =
      gdr::compiler::compile_chunked_to_files(spec, target, args["--out"], name, with_assembly);
  return s ? 0 : fail(s.message());
}
