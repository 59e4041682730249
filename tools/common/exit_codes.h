// The exit codes every gdr tool uses, and the line each --help ends with.
#pragma once

namespace gdr::tools {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;  // the op, a compile, or reading / writing a file failed
constexpr int kExitUsage = 2;   // the command line is wrong: nothing was done

constexpr char kExitCodesHelp[] =
    "exit codes: 0 ok, 1 the op or compile failed (or a file could not be read or written),\n"
    "            2 usage (a bad command line or environment variable; nothing was done)\n";

}  // namespace gdr::tools
