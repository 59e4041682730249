// Sets (or unsets) an environment variable for one scope and puts the old
// value back when the scope ends, also when an ASSERT returns early.
#pragma once

#include <stdlib.h>

#include <optional>
#include <string>

namespace gdr::test {

class ScopedEnv {
 public:
  // Only saves the variable; set() changes it.
  explicit ScopedEnv(std::string name) : name_(std::move(name)) {
    if (const char* old = getenv(name_.c_str())) old_ = old;
  }
  // `value` nullopt unsets the variable.
  ScopedEnv(std::string name, const std::optional<std::string>& value) : ScopedEnv(std::move(name)) {
    set(value);
  }
  ~ScopedEnv() { set(old_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

  void set(const std::optional<std::string>& value) const {
    value ? setenv(name_.c_str(), value->c_str(), 1) : unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace gdr::test
