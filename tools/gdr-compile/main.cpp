// gdr-compile: writes the generated recurrent kernel as a relocatable object
// (or its gdr module as text), for the host or a given triple/CPU/features.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

#include "gdr/compiler/recurrent.h"

namespace {

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "gdr-compile: %s\n", message.c_str());
  std::exit(1);
}

const char kUsage[] =
    "usage: gdr-compile --K 128 --V 128 [--vector-width 16 --v-tile 128 --unroll 1]\n"
    "                   [--triple T --cpu C --features F --vector-bits 512]\n"
    "                   [--emit object|mlir] -o FILE\n"
    "Schedule flags default to the target's default schedule; target flags to the host.\n";

int64_t integer(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end) die(flag + ": expected an integer, got '" + text + "'");
  return v;
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
    if (i + 1 >= argc) die(flag + ": missing value\n" + kUsage);
    args[flag] = argv[++i];
  }
  for (const auto& [flag, value] : args)
    if (flag != "--K" && flag != "--V" && flag != "--vector-width" && flag != "--v-tile" &&
        flag != "--unroll" && flag != "--triple" && flag != "--cpu" && flag != "--features" &&
        flag != "--vector-bits" && flag != "--emit" && flag != "-o")
      die("unknown flag '" + flag + "'\n" + kUsage);
  if (!args.count("--K") || !args.count("--V") || !args.count("-o"))
    die(std::string("--K, --V and -o are required\n") + kUsage);

  gdr::compiler::KernelSpec spec{integer("--K", args["--K"]), integer("--V", args["--V"])};
  gdr::compiler::Target target = gdr::compiler::host_target();
  if (args.count("--triple")) target.triple = args["--triple"];
  if (args.count("--cpu")) target.cpu = args["--cpu"];
  if (args.count("--features")) target.features = args["--features"];
  if (args.count("--vector-bits")) target.vector_bits = int(integer("--vector-bits", args["--vector-bits"]));
  gdr::compiler::RecurrentSchedule schedule = gdr::compiler::default_recurrent_schedule(spec, target);
  if (args.count("--vector-width")) schedule.vector_width = integer("--vector-width", args["--vector-width"]);
  if (args.count("--v-tile")) schedule.v_tile = integer("--v-tile", args["--v-tile"]);
  if (args.count("--unroll")) schedule.unroll = integer("--unroll", args["--unroll"]);

  const std::string emit = args.count("--emit") ? args["--emit"] : "object";
  std::ofstream out(args["-o"], std::ios::binary | std::ios::trunc);
  if (!out) die("-o: cannot write '" + args["-o"] + "'");
  if (emit == "mlir") {
    out << gdr::compiler::recurrent_module_text(spec, schedule, target);
  } else if (emit == "object") {
    std::vector<char> object;
    if (gdr::Status s = gdr::compiler::compile_recurrent_object(spec, schedule, target, &object); !s)
      die(s.message());
    out.write(object.data(), object.size());
  } else {
    die("--emit: expected object or mlir, got '" + emit + "'");
  }
  std::printf("%s\n", gdr::compiler::recurrent_kernel_name(spec, schedule).c_str());
  return 0;
}
