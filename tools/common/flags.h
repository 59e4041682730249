// Command-line flags of the form `--name value`, shared by the tools: only
// known flags, each at most once, each with a value; integers range-checked.
// Every error names the flag.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gdr/status.h"

namespace gdr::tools {

// The bound of every duration flag: a day; anything longer is a typo.
constexpr double kMaxDurationSeconds = 24 * 3600;

class Flags {
 public:
  // Parses argv[1..]. `--help` / `-h` sets help(), `--version` version(),
  // and each stops parsing.
  static Status parse(int argc, char** argv, const std::set<std::string>& known, Flags* flags);

  bool help() const { return help_; }
  bool version() const { return version_; }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // The flag's value, or `fallback` when it was not given.
  std::string get(const std::string& name, const std::string& fallback = "") const;
  const std::map<std::string, std::string>& all() const { return values_; }

  // The flag as an integer in [min, max]; *out is left alone when absent.
  Status integer(const std::string& name, int64_t min, int64_t max, int64_t* out) const;
  // The flag as a finite number in (0, max] (durations: "inf" and "nan"
  // are refused); *out is left alone when absent.
  Status positive_number(const std::string& name, double max, double* out) const;
  // A comma-separated list of integers in [min, max]; *out left alone when absent.
  Status integers(const std::string& name, int64_t min, int64_t max, std::vector<int64_t>* out) const;

 private:
  bool help_ = false;
  bool version_ = false;
  std::map<std::string, std::string> values_;
};

// Prints `usage` and the exit codes for --help, or version_text(tool) for
// --version, and says whether it did (the tool then exits with kExitOk).
bool answered_help_or_version(const Flags& flags, const char* usage, const std::string& tool);

// A whole decimal integer of int64_t's range (digits after an optional
// '-'); false otherwise.
bool parse_integer(const std::string& text, int64_t* out);

// "a,b,,c" -> {"a", "b", "", "c"} (with ',' the separator): an empty item
// is the caller's to refuse; "" -> {}.
std::vector<std::string> split_list(const std::string& text, char separator = ',');

// The integers of `text` split at `separator` into *out; false if one is
// not an integer in [min, max] (an empty item among them). An empty text is
// an empty list.
bool parse_integer_list(const std::string& text, char separator, int64_t min, int64_t max,
                        std::vector<int64_t>* out);

}  // namespace gdr::tools
