#include "flags.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "exit_codes.h"
#include "version.h"

namespace gdr::tools {

bool answered_help_or_version(const Flags& flags, const char* usage, const std::string& tool) {
  if (flags.help()) {
    std::fputs(usage, stdout);
    std::fputs(kExitCodesHelp, stdout);
  } else if (flags.version()) {
    std::fputs(version_text(tool).c_str(), stdout);
  }
  return flags.help() || flags.version();
}

bool parse_integer(const std::string& text, int64_t* out) {
  // Digits after an optional '-': strtoll alone would also skip leading
  // white space and take a '+'.
  const size_t digits = text.rfind('-', 0) == 0 ? 1 : 0;
  if (text.size() == digits || text.find_first_not_of("0123456789", digits) != std::string::npos) return false;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno == ERANGE) return false;
  *out = v;
  return true;
}

namespace {

// The flags every tool takes besides its own.
bool is_help(const std::string& flag) { return flag == "--help" || flag == "-h"; }
bool is_help_or_version(const std::string& flag) { return is_help(flag) || flag == "--version"; }

std::string range(int64_t min, int64_t max) {
  return "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

std::vector<std::string> split_list(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  if (!text.empty() && text.back() == separator) parts.emplace_back();  // getline drops a last empty item
  return parts;
}

Status Flags::parse(int argc, char** argv, const std::set<std::string>& known, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (is_help(flag)) {
      flags->help_ = true;
      return Status::success();
    }
    if (flag == "--version") {
      flags->version_ = true;
      return Status::success();
    }
    if (!known.count(flag)) return Status::error("unknown argument " + flag + " (see --help)");
    if (i + 1 >= argc) return Status::error(flag + " needs a value");
    if (argv[i + 1][0] == '\0') return Status::error(flag + ": needs a value, got ''");
    // `--out --threads 2` wrote a file named --threads: a forgotten value.
    const std::string value = argv[i + 1];
    if (known.count(value) || is_help_or_version(value))
      return Status::error(flag + ": needs a value, got the flag " + value + " (for a file of that name, write ./" +
                           value + ")");
    if (flags->has(flag)) return Status::error(flag + " given twice");
    flags->values_[flag] = argv[++i];
  }
  return Status::success();
}

std::string Flags::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

Status Flags::integer(const std::string& name, int64_t min, int64_t max, int64_t* out) const {
  if (!has(name)) return Status::success();
  int64_t v = 0;
  if (!parse_integer(get(name), &v) || v < min || v > max)
    return Status::error(name + ": expected an integer in " + range(min, max) + ", got '" +
                         get(name) + "'");
  *out = v;
  return Status::success();
}

Status Flags::positive_number(const std::string& name, double max, double* out) const {
  if (!has(name)) return Status::success();
  const std::string text = get(name);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  // Decimal only: strtod alone would also take "inf", "nan" and hex.
  if (text.empty() || text.find_first_not_of("0123456789.eE+-") != std::string::npos ||
      *end != '\0' || errno == ERANGE || !std::isfinite(v) || !(v > 0) || v > max) {
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", max);
    return Status::error(name + ": expected a number > 0 and <= " + limit + ", got '" + text + "'");
  }
  *out = v;
  return Status::success();
}

bool parse_integer_list(const std::string& text, char separator, int64_t min, int64_t max,
                        std::vector<int64_t>* out) {
  std::vector<int64_t> values;
  for (const std::string& part : split_list(text, separator)) {
    int64_t v = 0;
    if (!parse_integer(part, &v) || v < min || v > max) return false;
    values.push_back(v);
  }
  *out = std::move(values);
  return true;
}

Status Flags::integers(const std::string& name, int64_t min, int64_t max,
                       std::vector<int64_t>* out) const {
  if (!has(name)) return Status::success();
  std::vector<int64_t> values;
  if (!parse_integer_list(get(name), ',', min, max, &values))
    return Status::error(name + ": expected comma-separated integers in " + range(min, max) + ", got '" +
                         get(name) + "'");
  if (values.empty()) return Status::error(name + ": empty list");
  *out = values;
  return Status::success();
}

}  // namespace gdr::tools
