#include "gdr/compiler/settings.h"

#include <cstdlib>
#include <mutex>
#include <optional>

#include "gdr/compiler/disk_cache.h"
#include "gdr/compiler/tuning_db.h"

namespace gdr::compiler {

namespace {

struct State {
  std::mutex mutex;
  std::optional<Settings> settings;  // empty: the environment decides
};
State& state() {
  static State* s = new State;  // never destroyed: used by threads until exit
  return *s;
}

std::optional<Settings> current() {
  std::lock_guard<std::mutex> lock(state().mutex);
  return state().settings;
}

}  // namespace

void set_settings(const Settings& settings) {
  {
    std::lock_guard<std::mutex> lock(state().mutex);
    state().settings = settings;
  }
  reset_process_tuning_db();
}

std::string current_cache_dir() {
  const std::optional<Settings> s = current();
  return s ? s->cache_dir : disk_cache_dir_from_environment();
}

std::string current_tuning_db_path() {
  const std::optional<Settings> s = current();
  return s ? s->tuning_db_path : default_tuning_db_path();
}

Status verbosity_from_environment(int* verbosity) {
  const char* env = std::getenv("GDR_VERBOSE");
  const std::string text = env ? env : "";
  *verbosity = 1;
  if (text == "0" || text == "1" || text == "2") *verbosity = text[0] - '0';
  else if (!text.empty()) return Status::error("GDR_VERBOSE: expected 0, 1 or 2, got '" + text + "'");
  return Status::success();
}

int current_verbosity() {
  if (const std::optional<Settings> s = current()) return s->verbosity;
  int verbosity = 1;
  verbosity_from_environment(&verbosity);
  return verbosity;
}

}  // namespace gdr::compiler
