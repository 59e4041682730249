// gdr-tune's progress line on a terminal: candidates timed / planned, the
// current step, the time spent and left, rewritten in place with '\r'.
// Nothing at all when the stream is not a terminal (a log, a pipe, a test).
#pragma once

#include <chrono>
#include <cstdio>

#include "pace.h"

namespace gdr::tune {

class ProgressLine {
 public:
  explicit ProgressLine(std::FILE* stream);  // shown only if isatty(stream)
  bool shown() const { return shown_; }
  // Redraws the line from the pace, at most ten times a second.
  void update(const Pace& pace);
  // Erases the line, so that other output starts at the line's beginning.
  void clear();

 private:
  std::FILE* stream_;
  bool shown_, drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace gdr::tune
