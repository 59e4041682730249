// The exit codes every gdr tool uses, and the line each --help ends with.
#pragma once

namespace gdr::tools {

constexpr int kExitOk = 0;
// The work failed: reading an input, the op, a compile, writing the results.
constexpr int kExitFailed = 1;
// The command line is wrong, found before any work (a flag, its value, an
// output path that cannot be written or that is an input): nothing was done.
constexpr int kExitUsage = 2;

constexpr char kExitCodesHelp[] =
    "exit codes: 0 ok, 1 the op or compile failed (or an input could not be read),\n"
    "            2 usage (a bad flag, output path or environment variable; nothing was done)\n";

}  // namespace gdr::tools
