#include "progress.h"

#include <unistd.h>

#include <string>

namespace gdr::tune {

namespace {
std::string clock_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}
}  // namespace

ProgressLine::ProgressLine(std::FILE* stream) : stream_(stream), shown_(::isatty(::fileno(stream)) == 1) {}

void ProgressLine::update(const Pace& pace) {
  if (!shown_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  const double left = pace.left();
  // "\033[K" erases what a longer previous line left on the right.
  std::fprintf(stream_, "\r[%zu/%zu candidates] %s | %s spent, %s left%s\033[K", pace.done(), pace.total(),
               pace.step().c_str(), clock_text(pace.elapsed()).c_str(),
               left < 0 ? "?" : ("~" + clock_text(left)).c_str(), pace.has_budget() ? " (budget)" : "");
  std::fflush(stream_);
  drawn_ = true;
}

void ProgressLine::clear() {
  if (!drawn_) return;
  std::fputs("\r\033[K", stream_);
  std::fflush(stream_);
  drawn_ = false;
}

}  // namespace gdr::tune
