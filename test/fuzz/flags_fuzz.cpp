// Fuzzes the flag parsing of gdr-bench and gdr-tune (tools/common/flags.h,
// the form flags of form.h, gdr-bench's --shapes), with gdr-bench's flags
// and ranges: the arguments are the input split at NUL bytes. It must
// refuse with a message or parse, never crash; what it parses keeps the
// ranges the flags document. (Errors echo the input, newlines included:
// the tools' error printer keeps them one line, tool_cli_test.cpp.)
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "../../tools/gdr-bench/shapes.h"
#include "flags.h"
#include "form.h"

namespace {

constexpr int64_t kMaxSize = int64_t{1} << 20;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void check_error(const gdr::Status& s) { check(!s.message().empty()); }

bool in_range(const std::vector<int64_t>& values, int64_t min, int64_t max) {
  for (int64_t v : values)
    if (v < min || v > max) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t n) {
  std::vector<std::string> args = {"gdr-bench"};
  std::string arg;
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] == 0) {
      args.push_back(arg);
      arg.clear();
    } else {
      arg += static_cast<char>(bytes[i]);
    }
  }
  args.push_back(arg);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());

  std::set<std::string> known = {"--impl",    "--T",       "--H",      "--B",     "--K",
                                 "--V",       "--threads", "--seconds", "--shapes", "--interleave-cases"};
  known.insert(gdr::tools::kFormFlags.begin(), gdr::tools::kFormFlags.end());
  gdr::tools::Flags flags;
  if (gdr::Status s = gdr::tools::Flags::parse(static_cast<int>(argv.size()), argv.data(), known, &flags); !s) {
    check_error(s);
    return 0;
  }
  std::vector<int64_t> T = {1}, H = {32}, threads = {1};
  int64_t B = 1, K = 128, V = 128;
  double seconds = 1;
  for (gdr::Status s : {flags.integers("--T", 0, kMaxSize, &T), flags.integers("--H", 1, kMaxSize, &H),
                        flags.integer("--B", 1, kMaxSize, &B), flags.integer("--K", 1, kMaxSize, &K),
                        flags.integer("--V", 1, kMaxSize, &V), flags.integers("--threads", 1, 1024, &threads),
                        flags.positive_number("--seconds", gdr::tools::kMaxDurationSeconds, &seconds)})
    if (!s) {
      check_error(s);
      return 0;
    }
  check(!T.empty() && in_range(T, 0, kMaxSize) && !H.empty() && in_range(H, 1, kMaxSize));
  check(in_range({B, K, V}, 1, kMaxSize) && !threads.empty() && in_range(threads, 1, 1024));
  check(seconds > 0 && seconds <= gdr::tools::kMaxDurationSeconds);
  // Every item kept, empty ones too (the tool refuses those by name).
  const std::string impls = flags.get("--impl");
  check(gdr::tools::split_list(impls).size() ==
        (impls.empty() ? 0 : size_t(std::count(impls.begin(), impls.end(), ',')) + 1));
  int64_t interleave = 0;
  if (gdr::Status s = flags.integer("--interleave-cases", 0, 1, &interleave); !s) check_error(s);

  gdr::tools::Form form;
  if (gdr::Status s = gdr::tools::parse_form(flags, &form); !s) {
    check_error(s);
    return 0;
  }
  check(in_range(form.seqlens, 0, kMaxSize));
  if (gdr::Status s = gdr::tools::check_form(form, H, B); !s) check_error(s);
  for (int64_t h : H) (void)gdr::tools::form_json(form, h);
  (void)gdr::tools::form_text(form);

  if (!flags.has("--shapes")) return 0;
  gdr::bench::Shape base;
  base.B = B, base.K = K, base.V = V, base.H = H, base.T = T, base.form = form;
  std::vector<gdr::bench::Shape> shapes;
  if (gdr::Status s = gdr::bench::parse_shapes(flags.get("--shapes"), base, &shapes); !s) {
    check_error(s);
    check(s.message().rfind("--shapes: ", 0) == 0);
    return 0;
  }
  check(!shapes.empty());
  for (const gdr::bench::Shape& shape : shapes) {
    check(in_range({shape.B, shape.K, shape.V}, 1, kMaxSize));
    check(!shape.H.empty() && in_range(shape.H, 1, kMaxSize) && !shape.T.empty() && in_range(shape.T, 0, INT64_MAX));
    check(gdr::tools::check_form(shape.form, shape.H, shape.B).ok());
    if (!shape.form.seqlens.empty()) {
      int64_t sum = 0;
      for (int64_t length : shape.form.seqlens) sum += length;
      check(shape.T == std::vector<int64_t>{sum} && shape.B == 1);
    }
    for (int64_t h : shape.H) (void)gdr::tools::problem_form(shape.form, h);
  }
  return 0;
}
