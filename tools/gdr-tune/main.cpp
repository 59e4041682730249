// gdr-tune: searches each route's schedule knobs for a shape on this CPU,
// per (T, threads), within an optional --budget, and writes a report
// (<prefix>.md, <prefix>.json, the <prefix>-*.svg plots) and the winners
// into the tuning database that the routes read (docs/tuning.md).
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "../common/error_line.h"
#include "../common/exit_codes.h"
#include "../common/flags.h"
#include "../common/implementations.h"
#include "../common/form.h"
#include "../common/peak.h"
#include "candidates.h"
#include "crossover.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/toolchain.h"
#include "gdr/compiler/tuning_db.h"
#include "gdr/support/staged_outputs.h"
#include "gdr/thread_pool.h"
#include "pace.h"
#include "plots.h"
#include "progress.h"
#include "report.h"
#include "tuner.h"

namespace {

const char kUsage[] =
    "usage: gdr-tune [--B 1] [--H 32] [--K 128] [--V 128] [--T 1,512] [--threads 1,2]\n"
    "                [--seconds S per candidate per round (0.5)] [--routes recurrent,chunked]\n"
    "                [--budget S: the whole run; fewer seconds per candidate, else stopped early]\n"
    "                [--widths 4,8,16: vector widths to search (default: every one of this host)]\n"
    "                [--Hk N: key heads (GVA)] [--Hq N: query heads; > H: grouped readout, tuned\n"
    "                 as readouts = Hq / H] [--decay channel|scalar] [--layout bhtd|bthd]\n"
    "                [--seqlens 300,17,1: one varlen call, T their sum] [--in-place 1]\n"
    "                [--report PREFIX (reports/tune): writes PREFIX.md, PREFIX.json and the plots\n"
    "                 PREFIX-time-per-token.svg, PREFIX-chunked-grid.svg, PREFIX-decode-bandwidth.svg]\n"
    "                [--db FILE (default $GDR_CACHE_DIR/tuning.db, else\n"
    "                 $XDG_CACHE_HOME/gdr/tuning.db, else ~/.cache/gdr/tuning.db)]\n"
    "       gdr-tune --version\n";

[[noreturn]] void exit_with(int code, const std::string& message) {
  std::exit(gdr::tools::error_line("gdr-tune", code, message));
}
// A bad command line (including a --report or --db that cannot be used,
// checked before tuning): nothing was tuned or written.
[[noreturn]] void die(const std::string& message) { exit_with(gdr::tools::kExitUsage, message); }
// Writing the report or the database failed after tuning.
[[noreturn]] void fail(const std::string& message) { exit_with(gdr::tools::kExitFailed, message); }

struct Config {
  gdr::tune::TuneOptions tune;
  std::vector<int64_t> T = {1, 512}, threads = {1, 2};
  std::string report = "reports/tune", db;
  double budget_seconds = 0;  // --budget; 0: none
  // The report's files, staged once the flags are checked (stage_report):
  // a bad one fails before the tuning, not after it.
  std::unique_ptr<gdr::support::StagedOutputs> report_outputs = std::make_unique<gdr::support::StagedOutputs>();
};

// Why a file cannot be written at `file`, "" if it can: in an existing
// folder a unique file is made there and removed; a missing folder's
// nearest existing ancestor must be a folder this user may create folders
// in (they are created when the outputs are written). Run while parsing
// the flags, so that a bad path fails before the tuning, not after it, and
// a refused command line creates nothing.
std::string cannot_write(const std::string& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path parent = fs::path(file).parent_path();
  const std::string folder = parent.empty() ? "." : parent.string();
  if (!fs::exists(folder, ec)) {
    fs::path existing = fs::absolute(folder, ec);
    while (existing.has_parent_path() && existing != existing.parent_path() && !fs::exists(existing, ec))
      existing = existing.parent_path();
    if (!fs::is_directory(existing, ec))
      return "cannot create the folder " + folder + ": " + existing.string() + " is not a folder";
    if (::access(existing.c_str(), W_OK | X_OK) != 0)
      return "cannot create the folder " + folder + " in " + existing.string() + ": " + std::strerror(errno);
    return "";
  }
  if (!fs::is_directory(folder, ec)) return "cannot write in " + folder + ": not a folder";
  std::string probe = folder + "/.gdr-tune-probe.XXXXXX";
  const int fd = ::mkstemp(probe.data());
  if (fd < 0) return "cannot write in the folder " + folder + ": " + std::strerror(errno);
  ::close(fd);
  fs::remove(probe, ec);
  return "";
}

// Bytes of a problem's float32 tensors (make_problem: q, k, decay, v, beta,
// out per token; initial and final state per head), times `copies`; false
// if that overflows int64.
bool problem_bytes(int64_t B, int64_t H, int64_t T, int64_t K, int64_t V, int64_t copies,
                   int64_t* bytes) {
  int64_t heads, tokens, per_token, token_floats, state, floats;
  return !__builtin_mul_overflow(B, H, &heads) && !__builtin_mul_overflow(heads, T, &tokens) &&
         !__builtin_add_overflow(3 * K + 1, 2 * V, &per_token) &&
         !__builtin_mul_overflow(tokens, per_token, &token_floats) &&
         !__builtin_mul_overflow(heads, K * V * 2, &state) &&
         !__builtin_add_overflow(token_floats, state, &floats) &&
         !__builtin_mul_overflow(floats, 4 * copies, bytes);
}

// Dies, naming the flags, if the timed problem (B, H, the largest T) or the
// accuracy check's (1, 3, 70; float64 reference and float32 yardstick next
// to it: about 4 copies) would not fit in this machine's memory.
void check_memory(const Config& c) {
  const int64_t memory = int64_t(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGESIZE);
  const gdr::tune::TuneOptions& o = c.tune;
  auto check = [&](const char* flags, const char* what, int64_t B, int64_t H, int64_t T,
                   int64_t copies) {
    int64_t bytes = 0;
    const bool counted = problem_bytes(B, H, T, o.K, o.V, copies, &bytes);
    if (counted && (memory <= 0 || bytes <= memory)) return;
    char gib[64] = "more than 2^63 bytes";
    if (counted) std::snprintf(gib, sizeof gib, "%.1f GiB", bytes / 1073741824.0);
    die(std::string(flags) + ": " + what + " needs " + gib + ", more than this machine's " +
        std::to_string(memory >> 30) + " GiB of memory");
  };
  check("--B, --H, --T, --K, --V", "the timed problem", o.B, o.H, c.T.back(), 1);
  check("--K, --V", "the accuracy check", 1, 3, 70, 4);
}

gdr::Status readable_db(const std::string& path) {
  std::vector<gdr::compiler::TuningRecord> records;
  return gdr::compiler::read_tuning_db_to_replace(path, &records);
}

Config parse_args(int argc, char** argv) {
  gdr::tools::Flags flags;
  std::set<std::string> known = {"--B", "--H", "--K", "--V", "--T", "--threads", "--seconds",
                                 "--routes", "--widths", "--report", "--db", "--budget"};
  known.insert(gdr::tools::kFormFlags.begin(), gdr::tools::kFormFlags.end());
  if (gdr::Status s = gdr::tools::Flags::parse(argc, argv, known, &flags); !s) die(s.message());
  if (gdr::tools::answered_help_or_version(flags, kUsage, "gdr-tune")) std::exit(gdr::tools::kExitOk);
  if (gdr::Status s = gdr::tools::take_verbosity_from_environment(); !s) die(s.message());
  Config c;
  gdr::tune::TuneOptions& o = c.tune;
  constexpr int64_t kMaxSize = int64_t(1) << 20;
  const int pool = gdr::ThreadPool::shared().size();
  std::vector<int64_t> widths;
  for (gdr::Status s : {flags.integer("--B", 1, kMaxSize, &o.B), flags.integer("--H", 1, kMaxSize, &o.H),
                        flags.integer("--K", 1, 1024, &o.K), flags.integer("--V", 1, kMaxSize, &o.V),
                        flags.integers("--T", 1, kMaxSize, &c.T),
                        flags.integers("--threads", 1, pool, &c.threads),
                        flags.integers("--widths", 4, 16, &widths)})
    if (!s) die(s.message());
  // Each value once (a review: --threads 1,1 tuned the case twice and wrote
  // two records for one key; --widths 4,4 timed each candidate twice).
  for (std::vector<int64_t>* list : {&c.T, &c.threads, &widths}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  if (gdr::Status s = flags.positive_number("--seconds", gdr::tools::kMaxDurationSeconds, &o.seconds_per_candidate); !s)
    die(s.message());
  if (gdr::Status s = flags.positive_number("--budget", gdr::tools::kMaxDurationSeconds, &c.budget_seconds); !s)
    die(s.message());
  if (flags.has("--routes")) {
    o.routes.clear();
    for (const std::string& name : gdr::tools::split_list(flags.get("--routes"))) {
      gdr::Route r;
      if (!gdr::parse_route(name, &r) || (r != gdr::Route::Recurrent && r != gdr::Route::Chunked))
        die("--routes: '" + name + "' is not a tunable route (recurrent, chunked)");
      o.routes.insert(r);
    }
    if (o.routes.empty()) die("--routes: expected recurrent, chunked or both");
  }
  // The form: decay and readouts are the kernel's (and the database key's).
  if (gdr::Status s = gdr::tools::parse_form(flags, &o.form); !s) die(s.message());
  if (gdr::Status s = gdr::tools::check_form(o.form, {o.H}, o.B); !s) die(s.message());
  o.decay = o.form.decay;
  o.readouts = o.form.readouts(o.H);
  {
    gdr::Tensors sizes;  // what the generated kernels take (readouts)
    sizes.B = 1, sizes.H = o.H, sizes.K = o.K, sizes.V = o.V, sizes.query_heads = o.form.Hq(o.H);
    if (gdr::Status s = gdr::compiler::generated_kernels_take(sizes); !s) die("--Hq: " + s.message());
  }
  if (!o.form.seqlens.empty()) c.T = {o.form.T(0)};
  if (!o.form.seqlens.empty() && o.form.T(0) == 0) die("--seqlens: the lengths sum to 0 tokens: nothing to time");
  o.widths = gdr::tune::host_widths();
  if (flags.has("--widths")) {
    for (int64_t w : widths)
      if (std::find(o.widths.begin(), o.widths.end(), w) == o.widths.end())
        die("--widths: " + std::to_string(w) + " is not a vector width of this host (" +
            std::to_string(o.widths.front()) + " to " + std::to_string(o.widths.back()) +
            ", powers of two)");
    o.widths.assign(widths.begin(), widths.end());
  }
  c.report = flags.get("--report", c.report);
  c.db = flags.has("--db") ? flags.get("--db") : gdr::compiler::default_tuning_db_path();
  const char* cache_dir = std::getenv("GDR_CACHE_DIR");
  if (c.db.empty())
    die(cache_dir && std::string(cache_dir) == "off"
            ? "--db: not given, and GDR_CACHE_DIR=off leaves no default (tuning.db in the cache folder)"
            : "--db: not given, and none of GDR_CACHE_DIR, XDG_CACHE_HOME (absolute), HOME is set");
  check_memory(c);
  // None of the report's files the database (read back after the report
  // is written, it would be the report).
  for (const std::string& file : gdr::tune::report_files(c.report))
    if (gdr::support::same_file(file, c.db))
      die("--report " + c.report + ": " + file + " is the --db file (gdr-tune never overwrites an input)");
  // Checked where it will be written: a symbolic link's target.
  const std::string db_file = gdr::compiler::tuning_db_file(c.db);
  if (std::string why = cannot_write(db_file); !why.empty()) die("--db " + db_file + ": " + why);
  if (gdr::Status s = readable_db(db_file); !s) die("--db " + s.message());
  // Last: it creates the report's folder and temporaries.
  if (gdr::Status s = gdr::tune::stage_report(c.report, c.report_outputs.get()); !s)
    die("--report " + c.report + ": " + s.message());
  return c;
}

// Tunes every (T, threads), then writes the report and the database.
int run_tuning(const Config& config, int argc, char** argv, gdr::tune::Pace::Clock::time_point start) {
  gdr::tune::ReportContext context;
  for (int i = 0; i < argc; ++i) context.command += (i ? " " : "") + std::string(argv[i]);
  const gdr::compiler::ToolchainInfo tc = gdr::compiler::probe_toolchain();
  context.machine = tc.host_cpu + " (" + tc.host_triple + "), LLVM " + tc.llvm_version +
                    ", Halide target " + tc.halide_target;
  // Other processes' load skews two-thread timings most: say what it was.
  std::ifstream loadavg("/proc/loadavg");
  double load[3] = {0, 0, 0};
  if (loadavg >> load[0] >> load[1] >> load[2]) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "; load average at start %.2f %.2f %.2f (%d hardware threads)",
                  load[0], load[1], load[2], gdr::ThreadPool::shared().size());
    context.machine += buf;
  }
  const auto peak_start = gdr::tune::Pace::Clock::now();
  context.peak = gdr::bench::measure_peak();
  const double peak_seconds = std::chrono::duration<double>(gdr::tune::Pace::Clock::now() - peak_start).count();
  context.options = config.tune;
  context.db_path = config.db;
  context.name = std::filesystem::path(config.report).filename().string();
  context.budget_seconds = config.budget_seconds;
  std::printf("host: %s\nmachine peak: FMA %.1f GFLOP/s on 1 thread, %.1f on 2\nform: %s\n",
              context.machine.c_str(), context.peak.fma_gflops_1t, context.peak.fma_gflops_2t,
              gdr::tools::form_text(gdr::tune::call_form(config.tune)).c_str());
  const int usable_cpus = gdr::ThreadPool::usable_cpus();
  if (std::string w = gdr::bench::shared_cores_warning(context.peak, usable_cpus); !w.empty())
    std::printf("%s\n", w.c_str());

  const int check_threads = static_cast<int>(*std::max_element(config.threads.begin(), config.threads.end()));
  gdr::tune::Checker checker(config.tune, check_threads);
  std::vector<gdr::tune::CaseResult> cases;
  std::vector<gdr::compiler::TuningRecord> fresh;
  // The budget keeps back what follows the last round: the second peak
  // measurement (as long as the first) and writing the outputs.
  gdr::tune::Pace pace(config.budget_seconds, config.tune.seconds_per_candidate, start, peak_seconds + 0.2);
  const gdr::tune::RoundSizes sizes = gdr::tune::planned_sizes(config.tune);
  pace.plan((sizes.round1 + sizes.round2) * config.T.size() * config.threads.size());
  gdr::tune::ProgressLine progress(stderr);
  pace.on_change = [&](const gdr::tune::Pace& p) { progress.update(p); };
  for (size_t ti = 0; ti < config.T.size(); ++ti)
    for (int64_t threads : config.threads) {
      const int64_t T = config.T[ti];
      const std::string what = "T = " + std::to_string(T) + ", threads = " + std::to_string(threads);
      if (pace.spent()) {
        context.not_tuned.push_back(what);
        continue;
      }
      progress.clear();
      std::printf("\n== %s\n", what.c_str());
      std::fflush(stdout);
      cases.push_back(gdr::tune::tune_case(config.tune, T, static_cast<int>(threads), checker, &pace));
      progress.clear();
      const gdr::tune::CaseResult& c = cases.back();
      if (c.budget_cut) std::printf("  the budget cut this case: the best so far is kept\n");
      for (const gdr::tune::Entry& e : c.entries)
        if (!e.check.ok) std::printf("  excluded %s: %s\n", e.candidate.name().c_str(), e.check.why.c_str());
      for (const auto& [route, i] : c.winners) {
        const gdr::tune::Entry& e = c.entries[i];
        std::printf("  %-9s winner %-14s %12s%s\n", gdr::route_name(route), e.candidate.schedule.c_str(),
                    gdr::tune::duration_text(e.median_ns[c.final_round]).c_str(),
                    !c.ties.count(route) ? ""
                    : e.is_default    ? "  (tie within noise: the default kept)"
                                      : "  (tie within noise: the simpler kept)");
      }
      for (const auto& [route, ns] : c.baseline_ns[c.final_round])
        std::printf("  %-26s %12s\n", gdr::route_name(route), gdr::tune::duration_text(ns).c_str());
      if (!c.winners.empty())
        std::printf("  auto runs %s\n", gdr::route_name(gdr::tune::auto_choice(c, config.tune)));
    }
  // Where auto's route changes between two tuned Ts: the T it changes at.
  context.searches = gdr::tune::search_crossovers(config.tune, config.T, cases, &pace);
  progress.clear();
  for (const std::string& what : context.not_tuned) std::printf("\nnot tuned, the budget was spent: %s\n", what.c_str());
  for (const gdr::tune::CrossoverSearch& x : context.searches)
    std::printf("\ncrossover, threads = %d: %s up to T = %lld, %s from T = %lld (searched in %zu probes%s)\n",
                x.threads, gdr::route_name(x.below), (long long)x.T_from - 1, gdr::route_name(x.from),
                (long long)x.T_from, x.probes.size(), x.budget_cut ? "; the budget stopped it" : "");
  // The winners, each for its T's bucket (bounded by the searched crossovers).
  // A varlen call is planned by its sequences' mean length, so its one
  // record's bucket is that length's.
  std::vector<int64_t> bucket_T;
  for (int64_t T : config.T) bucket_T.push_back(config.tune.planned_T(T));
  for (const gdr::tune::CaseResult& c : cases) {
    const size_t ti = std::find(config.T.begin(), config.T.end(), c.T) - config.T.begin();
    const auto [T_min, T_max] = gdr::tune::searched_bucket(bucket_T, ti, c.threads, context.searches);
    for (const auto& [route, i] : c.winners)
      fresh.push_back({gdr::compiler::host_target().cpu, config.tune.K, config.tune.V, T_min, T_max, c.threads,
                       route, c.entries[i].candidate.schedule, c.entries[i].median_ns[c.final_round],
                       config.tune.decay, config.tune.readouts, c.form});
  }

  // The peak again, keeping the better of the two: a busy moment at start
  // would otherwise put candidates above 100% of it. Not if it would
  // overrun the budget.
  if (config.budget_seconds <= 0 || pace.elapsed() + peak_seconds <= config.budget_seconds) {
    const gdr::bench::MachinePeak after = gdr::bench::measure_peak();
    context.peak.fma_gflops_1t = std::max(context.peak.fma_gflops_1t, after.fma_gflops_1t);
    context.peak.fma_gflops_2t = std::max(context.peak.fma_gflops_2t, after.fma_gflops_2t);
    context.peak.copy_gbps_1t = std::max(context.peak.copy_gbps_1t, after.copy_gbps_1t);
  }
  context.shared_cores = gdr::bench::shared_cores_warning(context.peak, usable_cpus);

  // The report first: it holds every measurement, the database only the
  // winners. The database is merged with what it held for other shapes and
  // hosts (and what other runs wrote meanwhile); a file that went bad
  // meanwhile is not replaced.
  if (gdr::Status s = gdr::tune::write_report(config.report, *config.report_outputs, context, cases); !s)
    fail("--report " + s.message());
  std::vector<gdr::compiler::TuningRecord> merged;
  if (gdr::Status s = gdr::compiler::merge_into_tuning_db(config.db, fresh, &merged); !s) fail("--db " + s.message());
  std::printf("\nreport: %s.md, %s.json\n", config.report.c_str(), config.report.c_str());
  std::string plots;
  for (const char* suffix : gdr::tune::kPlotSuffixes) plots += (plots.empty() ? "" : ", ") + config.report + suffix;
  std::printf("plots: %s\ntuning db: %s (%zu records written, %zu in all)\n", plots.c_str(), config.db.c_str(),
              fresh.size(), merged.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto start = gdr::tune::Pace::Clock::now();
    const Config config = parse_args(argc, argv);
    return run_tuning(config, argc, argv, start);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "gdr-tune: out of memory (try smaller --B, --H, --T, --K, --V)\n");
    return gdr::tools::kExitFailed;
  }
}
