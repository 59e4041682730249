#include "gdr/compiler/settings.h"

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

int current_verbosity() {
  const std::optional<Settings> s = current();
  return s ? s->verbosity : 1;
}

}  // namespace gdr::compiler
