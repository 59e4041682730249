// gdr-bench: named implementations side by side, in one process, on the
// same inputs, interleaved so that machine drift hits all of them equally.
// Prints medians, effective GFLOP/s (8 K V flops per token per state head
// for every implementation, plus 2 K V per further readout: op_flops), the
// fraction of the measured FMA peak, and the speed-up over each baseline;
// --json writes the records. The call's form (--Hk, --Hq, --decay, --layout,
// --seqlens, --in-place) is the same for every case and every implementation,
// unless --shapes sets it per shape.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <new>
#include <optional>
#include <sstream>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "../common/error_line.h"
#include "../common/exit_codes.h"
#include "../common/flags.h"
#include "../common/form.h"
#include "../common/implementations.h"
#include "../common/json_text.h"
#include "../common/measure.h"
#include "../common/peak.h"
#include "shapes.h"
#include "gdr/loader.h"
#include "gdr/runtime.h"
#include "gdr/thread_pool.h"
#include "gdr/support/staged_outputs.h"
#include "gdr/reference/reference.h"
#ifdef GDR_HAVE_COMPILER
#include "gdr/compiler/chunked.h"
#include "gdr/compiler/recurrent.h"
#include "gdr/compiler/toolchain.h"
#endif

namespace {

using Clock = std::chrono::steady_clock;

struct Config {
  std::vector<std::string> impls;
  std::vector<int64_t> T = {1, 128, 512, 2048}, H = {16, 32};
  std::vector<int> threads = {1, 2};
  int64_t B = 1, K = 128, V = 128;
  double seconds_per_case = 2.0;  // time budget for one case, all impls together
  std::string json;
  bool halide_profile = false;  // chunked@...: per-Func profile at exit
  bool interleave_cases = false;  // every case of a thread count in one timing loop
  gdr::tools::Form form;
  // What runs: the flags' shape, or --shapes' list (each starting from it).
  std::vector<gdr::bench::Shape> shapes;
};

struct Record {
  std::string impl;
  int64_t B, H, T, K, V;
  int threads;      // the case's
  int threads_ran;  // the implementation's: fewer where it is serial
  double median_ns;
  int reps;
  gdr::tools::Form form;
  double peak_gflops;  // the FMA peak interleaved with the case
  double q1_ns, q3_ns;  // the repetitions' quartiles: the noise the median has
};

const char kUsage[] =
    "usage: gdr-bench [--impl a,b,... (recurrent,chunked,baseline-two-pass,baseline-chunked)]\n"
    "                 [--T 1,128,512,2048] [--H 16,32] [--B 1] [--K 128] [--V 128]\n"
    "                 [--threads 1,2: at most this machine's CPUs] [--seconds S per case (2)] [--json FILE]\n"
    "                 [--shapes 'K=256,V=256,H=16;K=64,V=64,H=32': every shape in one run and one\n"
    "                  table; each sets some of B, H, K, V, T, Hk, Hq, decay, layout, in_place and\n"
    "                  seqlens=300/17/1, the other flags the rest: 'layout=bhtd;layout=bthd']\n"
    "                 [--Hk N: key heads (GVA)] [--Hq N: query heads (grouped readout if > H)]\n"
    "                 [--decay channel|scalar] [--layout bhtd|bthd]\n"
    "                 [--seqlens 300,17,1: one varlen call, B = 1, T their sum, a state each]\n"
    "                 [--in-place 1: the final states written over the initial pool]\n"
    "                 [--halide-profile 1: Halide's per-Func profile of chunked@...]\n"
    "                 [--interleave-cases 1: time every case of a thread count in one interleaved\n"
    "                  loop (all their inputs in memory at once), so that cases compare as closely\n"
    "                  as the implementations of one case: layouts, varlen against equal lengths]\n"
    "implementations: every route gdr-run --route accepts (auto, recurrent and chunked run\n"
    "                 the tuned schedules of the tuning database; each case prints which);\n"
    "                 chunked@<schedule> (e.g. chunked@c32-w16) picks the chunked schedule,\n"
    "                 recurrent@<schedule> (e.g. recurrent@w16-vt64-u1-p2) the recurrent one;\n"
    "                 a suffix +cached or +streaming (e.g. auto+streaming) sets how final\n"
    "                 states are written (Options::final_state_stores; default: the runtime's),\n"
    "                 +out-cached or +out-streaming how out is (Options::out_stores);\n"
    "                 library:FILE:SYMBOL the kernel SYMBOL of a gdr-compile --shared 1 library\n"
    "                 (gdr::load_kernel, gdr::execute): another build's kernel beside this one's\n"
    "       gdr-bench --version\n";

// The --json output staged while the run lasts: std::exit destroys no
// local, so exit_with() removes its temporary.
gdr::support::StagedOutputs* g_json_output = nullptr;

[[noreturn]] void exit_with(int code, const std::string& message) {
  if (g_json_output) g_json_output->abandon();
  std::exit(gdr::tools::error_line("gdr-bench", code, message));
}
// A bad command line: nothing was measured.
[[noreturn]] void die(const std::string& message) { exit_with(gdr::tools::kExitUsage, message); }
// An implementation failed, or the report could not be written.
[[noreturn]] void fail(const std::string& message) { exit_with(gdr::tools::kExitFailed, message); }

// One --impl entry: what runs, and how it writes final states and out.
// "chunked@c32-w16" runs the chunked route with that schedule,
// "recurrent@w16-vt64-u1-p2" the recurrent route with that one;
// "auto+streaming" the route with streaming final states, "auto+out-cached"
// with cached outputs; "library:FILE:SYMBOL" a kernel from a shared object,
// run by gdr::execute (an experimental build's kernel against this build's,
// alternated in one process and checked against the first implementation).
struct Impl {
  gdr::Route route = gdr::Route::Auto;  // (a library's is unused: Auto)
  std::string schedule;                 // a given schedule, as plan lines write it
#ifdef GDR_HAVE_COMPILER
  gdr::compiler::Variant given;  // and parsed
#endif
  gdr::StateStores stores = gdr::StateStores::Automatic;
  gdr::StateStores out_stores = gdr::StateStores::Automatic;
  std::string library_file, library_symbol;  // library:FILE:SYMBOL
  std::optional<gdr::Kernel> library;        // loaded once every entry has parsed
};

Impl parse_impl(const std::string& text) {
  Impl impl;
  std::string name = text;
  const bool library = name.rfind("library:", 0) == 0;
  if (library) {  // FILE may hold '+', '@' and ':': the symbol follows the last ':'
    const size_t colon = name.rfind(':');
    impl.library_file = colon > 8 ? name.substr(8, colon - 8) : "";
    name = name.substr(colon + 1);  // SYMBOL and its suffixes
  }
  for (size_t plus; (plus = name.rfind('+')) != std::string::npos; name = name.substr(0, plus)) {
    const std::string suffix = name.substr(plus + 1);
    const bool out = suffix.rfind("out-", 0) == 0;
    if (!gdr::parse_state_stores(out ? suffix.substr(4) : suffix, out ? &impl.out_stores : &impl.stores))
      die("--impl " + text + ": a suffix must be +cached, +streaming, +out-cached or +out-streaming");
  }
  if (library) {
    if (impl.library_file.empty() || name.empty()) die("--impl " + text + ": expected library:FILE:SYMBOL");
    impl.library_symbol = name;
    return impl;
  }
  const size_t at = name.find('@');
  const std::string schedule = at == std::string::npos ? "" : name.substr(at + 1);
  name = name.substr(0, at);
  if (!gdr::parse_route(name, &impl.route)) die("--impl: unknown implementation '" + name + "'");
  if (at == std::string::npos) return impl;
#ifdef GDR_HAVE_COMPILER
  if (impl.route != gdr::Route::Chunked && impl.route != gdr::Route::Recurrent)
    die("--impl " + text + ": only chunked@<schedule> and recurrent@<schedule> take a schedule");
  std::string error;
  impl.given.route = impl.route;
  if (!gdr::compiler::parse_variant_schedule(impl.route, schedule, &impl.given, &error))
    die("--impl " + text + ": " + error);
  impl.schedule = impl.given.schedule_str();
#else
  die("--impl " + text + ": this build has no compiler");
#endif
  return impl;
}

Config parse_args(int argc, char** argv) {
  gdr::tools::Flags flags;
  std::set<std::string> known = {"--impl", "--T", "--H", "--B", "--K", "--V",
                                 "--threads", "--seconds", "--json", "--halide-profile", "--shapes",
                                 "--interleave-cases"};
  known.insert(gdr::tools::kFormFlags.begin(), gdr::tools::kFormFlags.end());
  if (gdr::Status s = gdr::tools::Flags::parse(argc, argv, known, &flags); !s) die(s.message());
  if (gdr::tools::answered_help_or_version(flags, kUsage, "gdr-bench")) std::exit(gdr::tools::kExitOk);
  Config c;
  constexpr int64_t kMaxSize = int64_t(1) << 20;
  std::vector<int64_t> threads(c.threads.begin(), c.threads.end());
  for (gdr::Status s : {flags.integers("--T", 0, kMaxSize, &c.T), flags.integers("--H", 1, kMaxSize, &c.H),
                        flags.integer("--B", 1, kMaxSize, &c.B), flags.integer("--K", 1, kMaxSize, &c.K),
                        flags.integer("--V", 1, kMaxSize, &c.V),
                        // The runtime runs at most its pool's threads: a row
                        // for more would be labelled with threads it never ran.
                        flags.integers("--threads", 1, gdr::ThreadPool::usable_cpus(), &threads)})
    if (!s) die(s.message());
  c.threads.assign(threads.begin(), threads.end());
  // The default 1,2 on a machine of one CPU: 1.
  if (!flags.has("--threads"))
    c.threads.erase(std::remove_if(c.threads.begin(), c.threads.end(),
                                   [](int t) { return t > gdr::ThreadPool::usable_cpus(); }),
                    c.threads.end());
  if (flags.has("--impl")) c.impls = gdr::tools::split_list(flags.get("--impl"));
  if (gdr::Status s = flags.positive_number("--seconds", gdr::tools::kMaxDurationSeconds, &c.seconds_per_case); !s)
    die(s.message());
  if (gdr::Status s = gdr::tools::parse_form(flags, &c.form); !s) die(s.message());
  if (!c.form.seqlens.empty()) c.T = {c.form.T(0)};
  // T = 0 runs first: each decode case's floor line compares it with the
  // same call at T = 0, which must have run by then.
  std::stable_partition(c.T.begin(), c.T.end(), [](int64_t T) { return T == 0; });
  gdr::bench::Shape base{c.B, c.K, c.V, c.H, c.T, c.form, ""};
  if (flags.has("--shapes")) {
    if (gdr::Status s = gdr::bench::parse_shapes(flags.get("--shapes"), base, &c.shapes); !s) die(s.message());
  } else {
    if (gdr::Status s = gdr::tools::check_form(c.form, c.H, c.B); !s) die(s.message());
    c.shapes = {base};
  }
  c.json = flags.get("--json");
  int64_t profile = 0;
  if (gdr::Status s = flags.integer("--halide-profile", 0, 1, &profile); !s) die(s.message());
  c.halide_profile = profile == 1;
  int64_t interleave = 0;
  if (gdr::Status s = flags.integer("--interleave-cases", 0, 1, &interleave); !s) die(s.message());
  c.interleave_cases = interleave == 1;
  return c;
}

double flops(const Record& r) { return gdr::tools::op_flops(r.B, r.H, r.T, r.K, r.V, r.form.readouts(r.H)); }

std::string json_record(const Record& r) {
  char buf[4096];
  std::snprintf(buf, sizeof buf,
                "\"B\": %lld, \"H\": %lld, \"T\": %lld, \"K\": %lld, \"V\": "
                "%lld, \"threads\": %d, \"threads_ran\": %d, \"median_ns\": %.0f, \"q1_ns\": %.0f, \"q3_ns\": %.0f, \"reps\": %d, "
                "\"gflops\": %.3f, \"peak_gflops\": %.3f, %s}",
                (long long)r.B, (long long)r.H, (long long)r.T, (long long)r.K,
                (long long)r.V, r.threads, r.threads_ran, r.median_ns, r.q1_ns, r.q3_ns, r.reps,
                r.median_ns > 0 ? flops(r) / r.median_ns : 0.0, r.peak_gflops,
                gdr::tools::form_json(r.form, r.H).c_str());
  // The name may be a library's path: any length, any character.
  return "{\"impl\": " + gdr::tools::json_string(r.impl) + ", " + buf;
}

int run(int argc, char** argv) {
  Config config = parse_args(argc, argv);
  // The --json file is checked (and staged) before an hour of measuring: a
  // path that cannot be written is a usage error, like a bad flag.
  gdr::support::StagedOutputs json_output;
  g_json_output = &json_output;
  struct Forget {  // before json_output goes (an exception unwinding run())
    ~Forget() { g_json_output = nullptr; }
  } forget;
  if (!config.json.empty())
    if (gdr::Status s = json_output.add("--json " + config.json, config.json); !s) die(s.message());
  if (gdr::Status s = gdr::tools::install_all_routes(); !s) die(s.message());
  if (config.impls.empty()) {
#ifdef GDR_HAVE_COMPILER
    config.impls = {"recurrent", "chunked", "baseline-two-pass", "baseline-chunked"};
#else
    config.impls = {"baseline-two-pass", "baseline-chunked"};
#endif
  }
  std::vector<Impl> impls;
  for (const std::string& text : config.impls) impls.push_back(parse_impl(text));
  for (const Impl& impl : impls)
    if (!config.json.empty() && !impl.library_file.empty() && gdr::support::same_file(config.json, impl.library_file))
      die("--json " + config.json + " is the library of --impl " + impl.library_file +
          " (gdr-bench never overwrites an input)");
  // Libraries load once the whole list has parsed: a usage error first, and
  // no library's initialisers before that.
  for (size_t i = 0; i < impls.size(); ++i) {
    if (impls[i].library_file.empty()) continue;
    gdr::Kernel kernel;
    if (gdr::Status s = gdr::load_kernel(impls[i].library_file, impls[i].library_symbol, &kernel); !s)
      fail("--impl " + config.impls[i] + ": " + s.message());
    impls[i].library = kernel;
  }
  // Points the chunked or recurrent route at an implementation's schedule (or the
  // planned one).
  auto select_variant = [&](const Impl& impl) {
#ifdef GDR_HAVE_COMPILER
    if (impl.route == gdr::Route::Recurrent) {
      if (impl.schedule.empty())
        gdr::compiler::install_routes();  // the route as installed: tuned
      else
        gdr::set_route_runner(gdr::Route::Recurrent, gdr::compiler::recurrent_runner(impl.given.recurrent));
      return;
    }
    if (impl.route != gdr::Route::Chunked) return;
    if (impl.schedule.empty() && !config.halide_profile) {  // the route as installed: tuned
      gdr::compiler::install_chunked_routes();
      return;
    }
    gdr::compiler::ChunkedSpec spec;
    spec.profile = config.halide_profile;
    if (!impl.schedule.empty()) spec.schedule = impl.given.chunked;
    gdr::set_route_runner(gdr::Route::Chunked, gdr::compiler::chunked_runner(spec));
#else
    (void)impl;
#endif
  };

#ifdef GDR_HAVE_COMPILER
  const gdr::compiler::ToolchainInfo tc = gdr::compiler::probe_toolchain();
  std::printf("host: %s (%s), LLVM %s, Halide target %s\n", tc.host_cpu.c_str(),
              tc.host_triple.c_str(), tc.llvm_version.c_str(), tc.halide_target.c_str());
#endif
  const gdr::bench::MachinePeak peak = gdr::bench::measure_peak();
  std::printf("machine peak: FMA %.1f GFLOP/s on 1 thread, %.1f on 2 (%d-bit vectors); copy %.1f GB/s\n\n",
              peak.fma_gflops_1t, peak.fma_gflops_2t, peak.vector_bits, peak.copy_gbps_1t);
  const std::string shared_cores = gdr::bench::shared_cores_warning(peak, gdr::ThreadPool::usable_cpus());
  if (!shared_cores.empty()) std::printf("%s\n\n", shared_cores.c_str());

  std::printf("form: %s\n", gdr::tools::form_text(config.form).c_str());
  for (size_t i = 0; i < config.shapes.size(); ++i)
    if (!config.shapes[i].text.empty())
      std::printf("shape %zu: %s (form: %s)\n", i + 1, config.shapes[i].text.c_str(),
                  gdr::tools::form_text(config.shapes[i].form).c_str());
  std::vector<Record> records;
  // The impl column fits the longest name (recurrent@w16-vt64-u1-p2+streaming).
  int impl_width = 20;
  for (const std::string& impl : config.impls) impl_width = std::max(impl_width, static_cast<int>(impl.size()));
  std::printf("%-*s %3s %4s %5s %4s %4s %3s %11s %8s %7s %9s %9s %6s\n", impl_width, "impl", "B", "H", "T", "K", "V",
              "thr", "median ms", "GFLOP/s", "%peak", "vs 2pass", "vs chunk", "iqr");
  // Each implementation's T = 0 median per (shape, H, threads): the state
  // copy, the floor of a decode call (docs/building-testing-benchmarking.md).
  std::map<std::tuple<const gdr::bench::Shape*, int64_t, int, size_t>, double> copy_ns;
  const size_t n_impl = impls.size();

  // One case: a shape at one H, T and thread count, its inputs, and each
  // implementation's outputs and times.
  struct Case {
    const gdr::bench::Shape* shape;
    int64_t H, T;
    int threads;
    gdr::test::Problem in;
    std::vector<gdr::test::LineAlignedFloats> outs;
    std::vector<gdr::test::LineAlignedFloats> states;
  };
  auto make_case = [&](const gdr::bench::Shape& shape, int64_t H, int64_t T, int threads) {
    // Inputs as in the contract, with decay ~ U(0.9, 1): the regime where
    // the baseline chunked kernel takes its chunked path, not its fallback.
    gdr::test::ProblemOptions options{gdr::test::DecayRegime::NearOne, gdr::test::BetaRegime::Uniform, true, 42};
    options.form = gdr::tools::problem_form(shape.form, H);
    return Case{&shape, H, T, threads, gdr::test::make_problem(shape.B, H, T, shape.K, shape.V, options),
                std::vector<gdr::test::LineAlignedFloats>(n_impl), std::vector<gdr::test::LineAlignedFloats>(n_impl)};
  };
  std::string failure;
  // keep_state: in place, leave the pool as the call left it (the check of
  // the implementations' final states).
  auto run_once = [&](Case& c, size_t i, bool keep_state = false) {
    c.outs[i].resize(c.in.out.size());
    gdr::Tensors t = c.in.tensors();
    t.out = c.outs[i].data();
    const bool in_place = c.shape->form.in_place;
    if (in_place) {
      // Each implementation its own pool, as it was before the call,
      // updated in place.
      if (c.states[i].empty()) c.states[i].assign(c.in.initial_state.begin(), c.in.initial_state.end());
      t.initial_state = t.final_state = c.states[i].data();
    } else {
      c.states[i].resize(c.in.final_state.size());
      t.final_state = c.states[i].data();
    }
    gdr::Options o;
    o.route = impls[i].route;
    o.final_state_stores = impls[i].stores;
    o.out_stores = impls[i].out_stores;
    select_variant(impls[i]);
    o.threads = c.threads;
    auto start = Clock::now();
    gdr::Status s = impls[i].library ? gdr::execute(*impls[i].library, t, o) : gdr::run(t, o);
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    if (!s) failure = config.impls[i] + ": " + s.message();
    // The pool restored now, outside the timing: restored just before the
    // next timed call, it would be found freshly written in cache, where a
    // functional call finds its state as the work in between left it
    // (2 MiB of state, 32 heads: 132-134 us restored just before, 183-216
    // with 16 MiB read in between; review of 2026-12-07).
    if (in_place && !keep_state) c.states[i].assign(c.in.initial_state.begin(), c.in.initial_state.end());
    return ns;
  };

  // Prints case c's rows from its implementations' times (and records them).
  auto report = [&](Case& c, const std::vector<std::vector<double>>& times, double case_peak) {
    const gdr::bench::Shape& shape = *c.shape;
    const int64_t H = c.H, T = c.T;
    const int threads = c.threads;
    std::map<gdr::Route, double> medians;
    std::vector<double> impl_median(n_impl);
    std::vector<gdr::tools::Spread> impl_spread(n_impl);
    for (size_t i = 0; i < n_impl; ++i) {
      impl_spread[i] = gdr::tools::spread(times[i]);
      impl_median[i] = impl_spread[i].median;
      if (!impls[i].library) medians.emplace(impls[i].route, impl_median[i]);  // the baselines' ratios
    }
    for (size_t i = 0; i < n_impl; ++i) {
      // The threads the row ran on: the two-pass baseline is serial, as
      // ExecuTorch's decode is; its %peak is of one thread's share of the
      // case's peak.
      const int ran = impls[i].route == gdr::Route::BaselineTwoPass && !impls[i].library
                          ? gdr::threads_for_call(c.in.tensors(), threads, /*kernel_max_threads=*/1)
                          : threads;
      Record r{config.impls[i], shape.B, H, T, shape.K, shape.V, threads, ran,
               impl_median[i], static_cast<int>(times[i].size()), shape.form, case_peak,
               impl_spread[i].q1, impl_spread[i].q3};
      records.push_back(r);
      const double gflops = flops(r) / r.median_ns;
      auto ratio = [&](gdr::Route base) {
        auto it = medians.find(base);
        return it == medians.end() ? std::string("-") : std::to_string(it->second / r.median_ns).substr(0, 5) + "x";
      };
      std::printf("%-*s %3lld %4lld %5lld %4lld %4lld %3d %11.3f %8.2f %6.1f%% %9s %9s %5.1f%%\n", impl_width,
                  r.impl.c_str(), (long long)r.B, (long long)H, (long long)T, (long long)shape.K, (long long)shape.V,
                  ran, r.median_ns / 1e6, gflops, 100 * gflops / (case_peak * ran / threads),
                  ratio(gdr::Route::BaselineTwoPass).c_str(), ratio(gdr::Route::BaselineChunked).c_str(),
                  100 * impl_spread[i].relative_iqr());
    }
    // What the generated routes ran: tuned, default or given, and which schedule.
    std::string planned;
    for (size_t i = 0; i < n_impl; ++i) {
      std::string ran;
      const Impl& impl = impls[i];
      if (impl.library)
        ran = "kernel " + impl.library->name;
      else if (!impl.schedule.empty())
        ran = std::string(gdr::route_name(impl.route)) + " " + impl.schedule + " (given)";
      else if (impl.route == gdr::Route::Auto || impl.route == gdr::Route::Recurrent ||
               impl.route == gdr::Route::Chunked)
        ran = gdr::tools::explain_route(impl.route, c.in.tensors(), threads);
      if (!ran.empty()) planned += std::string(planned.empty() ? "" : "; ") + config.impls[i] + ": " + ran;
    }
    if (!planned.empty()) std::printf("  plan: %s\n", planned.c_str());
    if (config.shapes.size() > 1)
      std::printf("  shape %zu (form: %s)\n", size_t(c.shape - config.shapes.data()) + 1,
                  gdr::tools::form_text(shape.form).c_str());
    std::printf("  peak: FMA %.1f GFLOP/s on %d thread%s, interleaved with the case%s (%%peak's)\n", case_peak,
                threads, threads == 1 ? "" : "s", config.interleave_cases ? "s" : "");
    // Decode against its floor: the same call at T = 0 (functional: the
    // state copy; in place it has nothing to do), and the state bytes
    // (every initial state read, every final state written) per second
    // against the copy bandwidth measured at the start (memcpy of 64 MiB,
    // 1 thread: from memory, where a call's states may be in cache).
    const double state_bytes = 2.0 * 4 * gdr::call_shape(c.in.tensors()).sequences * H * shape.K * shape.V;
    for (size_t i = 0; i < n_impl; ++i) {
      const auto key = std::make_tuple(c.shape, H, threads, i);
      if (T == 0) copy_ns[key] = impl_median[i];
      const bool has_copy = copy_ns.count(key) && !shape.form.in_place;
      if (T < 1 || T > 4 || !(has_copy || shape.form.in_place)) continue;
      const double gbps = state_bytes / impl_median[i];
      char vs_copy[64] = "";
      if (has_copy) std::snprintf(vs_copy, sizeof vs_copy, "%.2fx its T=0 call; ", impl_median[i] / copy_ns[key]);
      std::printf("  floor: %s %sstate read + written at %.1f GB/s, %.2fx the copy bandwidth measured at the "
                  "start\n",
                  config.impls[i].c_str(), vs_copy, gbps, gbps / peak.copy_gbps_1t);
    }
    // Every implementation must agree with the first one on these
    // inputs, outputs and final states.
    auto worst_difference = [](const auto& x, const auto& reference) {
      double worst = 0;
      for (size_t e = 0; e < reference.size(); ++e)
        worst = std::max(worst, double(std::abs(x[e] - reference[e])) / (1 + std::abs(reference[e])));
      return worst;
    };
    if (shape.form.in_place)  // the timed calls' pools were restored: one more call each
      for (size_t i = 0; i < n_impl; ++i) run_once(c, i, /*keep_state=*/true);
    for (size_t i = 1; i < n_impl; ++i) {
      const double worst = std::max(worst_difference(c.outs[i], c.outs[0]), worst_difference(c.states[i], c.states[0]));
      if (!(worst < 1e-3))
        std::printf("  WARNING: %s differs from %s by %.2e (relative)\n", config.impls[i].c_str(),
                    config.impls[0].c_str(), worst);
    }
    std::fflush(stdout);
  };

  // Times a batch of cases of one thread count in one interleaved loop:
  // every implementation of every case, and the FMA peak on those threads
  // as one more "implementation" (the last), so that %peak compares samples
  // of the same moments of the run. Then reports each case.
  auto time_batch = [&](std::vector<Case>& batch) {
    const int threads = batch.front().threads;
    double peak_flops = 0;  // per sample
    auto run_any = [&](size_t k) {
      return k == batch.size() * n_impl ? gdr::bench::fma_sample_ns(threads, &peak_flops)
                                        : run_once(batch[k / n_impl], k % n_impl);
    };
    gdr::tools::TimingBudget budget;
    budget.seconds = config.seconds_per_case * batch.size();
    // A failing implementation ends the timing after the warm-up.
    std::vector<std::vector<double>> times = gdr::tools::time_interleaved(
        batch.size() * n_impl + 1, run_any, budget, [&] { return !failure.empty(); });
    const double case_peak = peak_flops / gdr::tools::median(times.back());
    if (!failure.empty()) fail(failure);
    for (size_t b = 0; b < batch.size(); ++b)
      report(batch[b], std::vector<std::vector<double>>(times.begin() + b * n_impl, times.begin() + (b + 1) * n_impl),
             case_peak);
  };

  if (config.interleave_cases) {
    // One loop per thread count, not one for all: after a 1-thread call the
    // pool's helper and its core have gone idle, and 2-thread calls that
    // follow one run slower than back to back (an FMA sample on 2 threads
    // after 10 ms of 1-thread work: median 161 GFLOP/s, 175 with the helper
    // woken first, 191 back to back; Zen 3 VM, 2026-12-03). The price: a
    // machine drifting between the loops skews 1 against 2 threads.
    for (int threads : config.threads) {
      std::vector<Case> batch;
      for (const gdr::bench::Shape& shape : config.shapes)
        for (int64_t H : shape.H)
          for (int64_t T : shape.T) batch.push_back(make_case(shape, H, T, threads));
      time_batch(batch);
    }
  } else {
    for (const gdr::bench::Shape& shape : config.shapes)
      for (int64_t H : shape.H)
        for (int64_t T : shape.T)
          for (int threads : config.threads) {
            std::vector<Case> batch;
            batch.push_back(make_case(shape, H, T, threads));
            time_batch(batch);
          }
  }

  if (!config.json.empty()) {
    std::ostringstream out;
    out << "[\n  {\"impl\": \"machine\", \"fma_gflops_1t\": " << peak.fma_gflops_1t
        << ", \"fma_gflops_2t\": " << peak.fma_gflops_2t << ", \"copy_gbps_1t\": " << peak.copy_gbps_1t
        << ", \"vector_bits\": " << peak.vector_bits
        << ", \"shared_cores\": " << (shared_cores.empty() ? "false" : "true") << "}";
    for (const Record& r : records) out << ",\n  " << json_record(r);
    out << "\n]\n";
    if (gdr::Status s = json_output.write(0, {out.str()}); !s) fail(s.message());
    if (gdr::Status s = json_output.commit(); !s) fail(s.message());
    std::printf("\nwrote %s\n", config.json.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    fail("out of memory (try smaller --B, --H, --T, --K, --V)");
  }
}
