// Running another program (ld.lld) and waiting for it. While it runs, a
// signal that ends this process (one the tools' staged outputs clean up
// after) ends it first, so that it cannot write a file after the cleanup.
#pragma once

#include <string>
#include <vector>

namespace gdr::support {

struct ProgramRun {
  int spawn_error = 0;  // posix_spawnp's error (ENOENT: not on PATH); 0: it ran
  int wait_error = 0;   // waitpid's error; 0: it was waited for
  int status = 0;       // waitpid's status
};

// Runs argv[0], found on PATH, with `argv`, and waits for it.
ProgramRun run_program(const std::vector<std::string>& argv);

}  // namespace gdr::support
