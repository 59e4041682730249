// The code generator's process-wide settings: where the kernel cache and the
// tuning database are, and how much it says on stderr. gdr::jit::install
// sets them once from its Options; until something sets them (the tools
// before they install the routes, most tests) each is taken from the
// environment when it is used, as before.
#pragma once

#include <string>

#include "gdr/status.h"

namespace gdr::compiler {

struct Settings {
  std::string cache_dir;       // the kernel cache's folder; "" turns the cache off
  std::string tuning_db_path;  // the tuning database; "" means none (default schedules)
  int verbosity = 1;           // 0 silent, 1 warnings, 2 also each kernel compiled or loaded
};

// Replaces the settings for the rest of the process (or until the next
// call). The tuning database is read again, at its next use, from the new
// path. Thread-safe; kernels compiled before keep running.
void set_settings(const Settings& settings);

// The folder DiskCache::current() uses: the one set, else
// disk_cache_dir_from_environment() (read at each call).
std::string current_cache_dir();

// The database process_tuning_db() reads: the one set, else
// default_tuning_db_path() (read at each call).
std::string current_tuning_db_path();

// GDR_VERBOSE into *verbosity: 0, 1 or 2, 1 when unset or empty; any other
// value is an error naming it (*verbosity then 1).
Status verbosity_from_environment(int* verbosity);

// The verbosity set, else GDR_VERBOSE's (gdr-compile and gdr-tune refuse a
// bad one at start).
int current_verbosity();

}  // namespace gdr::compiler
