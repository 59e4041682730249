#include "gdr/compiler/variant.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <tuple>
#include <vector>

#include "gdr/Dialect/DefaultSchedule.h"
#include "gdr/Dialect/Limits.h"
#include "gdr/compiler/recurrent.h"
#include "halide_pipeline.h"

namespace gdr::compiler {

static_assert(kMaxGeneratedReadouts == mlir::gdr::kMaxReadouts);

Status generated_kernels_take(const Tensors& t) {
  const CallShape shape = call_shape(t);
  if (shape.readouts <= kMaxGeneratedReadouts) return Status::success();
  return Status::error("query_heads: the generated routes read a state head out with at most " +
                       std::to_string(kMaxGeneratedReadouts) + " query heads, got " +
                       std::to_string(shape.readouts) + " (query_heads=" + std::to_string(shape.query_heads) +
                       ", H=" + std::to_string(t.H) + ")");
}

namespace {

auto recurrent_key(const RecurrentSchedule& s) { return s.fields(); }

// The fields of `v` its route reads, comparable.
auto key(const Variant& v) {
  const bool recurrent = v.route == Route::Recurrent;
  return std::make_tuple(v.route, v.K, v.V, v.decay, v.readouts,
                         recurrent ? recurrent_key(v.recurrent) : recurrent_key(RecurrentSchedule{}),
                         recurrent ? schedules::Schedule{} : v.chunked,
                         recurrent ? Scheduler::Hand : v.scheduler);
}

constexpr char kAdamsSuffix[] = "-adams2019";

// Decode (T <= kDecodeTokens) is bound by reading and writing the state
// once; it runs fastest with the widest tile the registers hold (fewer
// passes of the per-token setup), whereas longer sequences want the packed
// tile to stay in L1 (default schedule). Measured with gdr-bench, H = 32,
// K = V = 128, 1 thread: T = 1 takes 0.167 ms with 8 vectors per tile
// against 0.203 ms with the default 4; 2 threads (2026-11-30): 0.072 ms with
// 8 vectors, 0.084-0.088 with 4, 0.103 with 2. Where the wide tile stops
// paying (gdr-tune --H 32 --T 2,4,8,16 --threads 1 --widths 16, 2026-11-30,
// 8 against 4 vectors): T = 2 0.221 / 0.255 ms, T = 4 0.299-0.313 /
// 0.289-0.306, T = 8 0.484 / 0.390-0.425, T = 16 0.838 / 0.585-0.613.
// Since the kernel sweeps tokens in pairs (from T = 2), a pair's sums take
// twice the accumulators, which 8 vectors do not leave registers for: one
// gdr-bench run (2026-12-02, recurrent@, 1 thread), 8 against 4 vectors:
// T = 1 0.193 / 0.208 ms, T = 2 0.309 / 0.260, T = 4 0.403 / 0.317
// (K = V = 256, H = 16: 0.427 / 0.444, 0.627 / 0.510, 0.819 / 0.599).
//
// On 16 registers an 8-vector decode tile spills its 16 sums (Sᵀdk, Sᵀdq)
// and deltas; at K = 64 that costs more than the 4-vector tile's strided
// rows. AOT kernels alternated in one process (2026-12-03, Zen 3, AVX2, H =
// 32, streamed, sums handed from task to task), T = 1 median ms, 4 / 8
// vectors: K = V = 64 0.035 / 0.057 and 0.044 / 0.055 on 1 thread, 0.021 /
// 0.022 and 0.020 / 0.021 on 2; K = V = 128 0.165 / 0.156 and 0.159 /
// 0.148 on 1 thread, 0.145 / 0.110 and 0.106 / 0.099 on 2; K = V = 256 (H
// = 16) 0.313 / 0.293 and 0.321 / 0.296 on 1 thread, 0.176 / 0.167 on 2.
// SSE (16 registers too) follows the register count; it was not measured.
// (kDecodeTokens, variant.h.)

}  // namespace

std::string Variant::name() const {
  const std::string shape = "_f32_k" + std::to_string(K) + "_v" + std::to_string(V) +
                            (decay == DecayKind::Scalar ? "_sd" : "") +
                            (readouts > 1 ? "_r" + std::to_string(readouts) : "") + "__";
  if (route == Route::Chunked)
    return "gdr_chunked" + shape + "c" + std::to_string(chunked.chunk) + "_w" +
           std::to_string(chunked.vector_width) +
           (scheduler == Scheduler::Adams2019 ? "_adams2019" : "");
  const RecurrentSchedule& s = recurrent;
  return "gdr_recurrent" + shape + "w" + std::to_string(s.vector_width) + "_vt" +
         std::to_string(s.v_tile) + "_u" + std::to_string(s.unroll) + "_p" +
         std::to_string(s.prefetch) + (s.sweep_tokens != 2 ? "_t" + std::to_string(s.sweep_tokens) : "");
}

std::string Variant::schedule_str() const {
  if (route == Route::Chunked)
    return chunked.str() + (scheduler == Scheduler::Adams2019 ? kAdamsSuffix : "");
  const RecurrentSchedule& s = recurrent;
  return "w" + std::to_string(s.vector_width) + "-vt" + std::to_string(s.v_tile) + "-u" +
         std::to_string(s.unroll) + "-p" + std::to_string(s.prefetch) +
         (s.sweep_tokens != 2 ? "-t" + std::to_string(s.sweep_tokens) : "");
}

std::string Variant::str() const {
  return std::string(route_name(route)) + " K=" + std::to_string(K) + " V=" + std::to_string(V) +
         " " + schedule_str() + (decay == DecayKind::Scalar ? " decay=scalar" : "") +
         (readouts > 1 ? " readouts=" + std::to_string(readouts) : "");
}

bool Variant::operator==(const Variant& o) const { return key(*this) == key(o); }
bool Variant::operator<(const Variant& o) const { return key(*this) < key(o); }

namespace {

Variant form_variant(Route route, const KernelSpec& spec) {
  Variant v;
  v.route = route;
  v.K = spec.K;
  v.V = spec.V;
  v.decay = spec.decay;
  v.readouts = spec.readouts;
  return v;
}

}  // namespace

Variant recurrent_variant(const KernelSpec& spec, const RecurrentSchedule& schedule) {
  Variant v = form_variant(Route::Recurrent, spec);
  v.recurrent = schedule;
  return v;
}

Variant chunked_variant(const KernelSpec& spec, const schedules::Schedule& schedule,
                        Scheduler scheduler) {
  Variant v = form_variant(Route::Chunked, spec);
  v.chunked = schedule;
  v.scheduler = scheduler;
  return v;
}

bool parse_variant_schedule(Route route, const std::string& text, Variant* v, std::string* error) {
  if (route == Route::Chunked) return schedules::parse_schedule(text, &v->chunked, error);
  if (route != Route::Recurrent) {
    *error = std::string("route '") + route_name(route) + "' has no tuned schedules";
    return false;
  }
  long long w = 0, vt = 0, u = 0, p = 0, t = 2;
  int used = 0, used_p = 0, used_t = 0;
  const int n = std::sscanf(text.c_str(), "w%lld-vt%lld-u%lld%n-p%lld%n-t%lld%n", &w, &vt, &u,
                            &used, &p, &used_p, &t, &used_t);
  if (n == 4) used = used_p;
  if (n == 5) used = used_t;
  // The numbers as written back: sscanf alone would also take spaces, signs
  // and leading zeros ("w 16-vt+64-u01").
  const std::string written = "w" + std::to_string(w) + "-vt" + std::to_string(vt) + "-u" + std::to_string(u) +
                              (n >= 4 ? "-p" + std::to_string(p) : "") + (n == 5 ? "-t" + std::to_string(t) : "");
  if (n < 3 || used != static_cast<int>(text.size()) || written != text || w <= 0 || vt <= 0 || u <= 0 ||
      p < 0 || vt % w != 0 || (t != 1 && t != 2)) {
    *error = "recurrent schedule '" + text +
             "' is not of the form w<width>-vt<v_tile, a multiple of width>-u<unroll>"
             "[-p<prefetch>[-t<tokens per sweep, 1 or 2>]], e.g. w16-vt64-u1-p2";
    return false;
  }
  v->recurrent = RecurrentSchedule{w, vt, u, p, t};
  return true;
}

bool parse_form_word(const std::string& word, Variant* v, std::string* error) {
  if (word == "decay=scalar" || word == "decay=channel") {
    v->decay = word == "decay=scalar" ? DecayKind::Scalar : DecayKind::Channel;
    return true;
  }
  const std::string digits = word.rfind("readouts=", 0) == 0 ? word.substr(9) : "";
  char* end = nullptr;
  errno = 0;
  const long long n = std::strtoll(digits.c_str(), &end, 10);
  if (!digits.empty() && digits[0] != '+' && *end == '\0' && errno == 0 && n >= 1) {
    v->readouts = n;
    return true;
  }
  *error = "expected decay=scalar|channel or readouts=<positive integer>, got '" + word + "'";
  return false;
}

bool parse_variant(const std::string& text, Variant* out, std::string* error) {
  std::istringstream in(text);
  std::vector<std::string> f;
  for (std::string word; in >> word;) f.push_back(word);
  auto fail = [&](const std::string& why) {
    *error = "variant '" + text + "': " + why;
    return false;
  };
  if (f.size() < 4 || f.size() > 6)
    return fail("expected <route> K=<n> V=<n> <schedule> [decay=scalar|channel] [readouts=<n>], "
                "e.g. recurrent K=128 V=128 w16-vt64-u1-p2");
  Variant v;
  for (size_t i = 4; i < f.size(); ++i)
    if (std::string why; !parse_form_word(f[i], &v, &why)) return fail(why);
  if (!parse_route(f[0], &v.route) || (v.route != Route::Recurrent && v.route != Route::Chunked))
    return fail("route: expected recurrent or chunked, got '" + f[0] + "'");
  for (auto [word, prefix, field] :
       {std::make_tuple(f[1], "K=", &v.K), std::make_tuple(f[2], "V=", &v.V)}) {
    const std::string digits = word.substr(0, 2) == prefix ? word.substr(2) : "";
    char* end = nullptr;
    errno = 0;
    const long long n = std::strtoll(digits.c_str(), &end, 10);
    if (digits.empty() || *end != '\0' || errno != 0 || n <= 0 || digits[0] == '+')
      return fail(std::string(prefix, 1) + ": expected " + prefix + "<positive integer>, got '" +
                  word + "'");
    *field = n;
  }
  std::string schedule = f[3];
  const size_t suffix = sizeof kAdamsSuffix - 1;
  if (v.route == Route::Chunked && schedule.size() > suffix &&
      schedule.compare(schedule.size() - suffix, suffix, kAdamsSuffix) == 0) {
    v.scheduler = Scheduler::Adams2019;
    schedule.resize(schedule.size() - suffix);
  }
  std::string why;
  if (!parse_variant_schedule(v.route, schedule, &v, &why)) return fail(why);
  *out = v;
  return true;
}

std::string halide_description(const std::string& halide_target) {
  return std::string("halide ") + GDR_HALIDE_VERSION + "\nhalide target " + halide_target;
}

std::string cache_description(const Variant& v, const Target& target) {
  if (v.route == Route::Chunked) {
    if (v.scheduler == Scheduler::Adams2019) return "";
    return "route chunked\nkernel " + v.name() + "\nschedule " + v.chunked.str() + "\n" +
           halide_description(kernel_target().to_string());
  }
  // The module text holds the kernel name, K, V, the schedule, the CPU and
  // the vector width; the features and triple complete the target.
  return "route recurrent\ntriple " + target.triple + "\ncpu " + target.cpu + "\nfeatures " +
         target.features + "\nmodule " + recurrent_module_text(v.spec(), v.recurrent, target);
}

RecurrentSchedule dialect_default_recurrent(int64_t K, const Target& target, int64_t readouts) {
  const int registers = vector_registers(target);
  const mlir::gdr::RecurrentScheduleKnobs s = mlir::gdr::fitReadouts(
      mlir::gdr::defaultRecurrentSchedule(K, target.vector_bits, registers, target.cpu), readouts, registers);
  return RecurrentSchedule{s.vectorWidth, s.vTile, s.unroll, s.prefetch, s.sweepTokens};
}

Variant default_variant(Route route, const KernelSpec& spec, int64_t T, const Target& target) {
  if (route == Route::Chunked)
    return chunked_variant(spec, schedules::default_schedule(target.vector_bits / 32));
  const int64_t V = spec.V;
  const bool decode = T <= kDecodeTokens;
  // Prefill's tile and sweep fit the readouts (fitReadouts); decode, bound
  // by the state's stream, keeps its wide tile: at T = 1 (H = 32, 1
  // readout) 8 vectors took 0.202 ms against 0.262 with 4 and 0.38 with 2
  // or 3.
  RecurrentSchedule s = dialect_default_recurrent(spec.K, target, decode ? 1 : spec.readouts);
  const int64_t w = s.vector_width;
  if (decode) {
    s.v_tile = (vector_registers(target) < 32 && spec.K <= 64 ? 4 : 8) * w;
    // Two rows a step were for 2-vector tiles on 32 registers (DefaultSchedule);
    // a one-token block steps one row at a time whatever the unroll.
    if (vector_registers(target) == 32) s.unroll = 1;
  }
  // Columns past V would only name a different kernel that computes the
  // same: the tile is clamped to the whole vectors of V (at least one).
  s.v_tile = std::max(w, std::min(s.v_tile, V / w * w));
  if (decode)
    s.v_tile = mlir::gdr::tileWithinAccumulators(s.v_tile, w, 1 + spec.readouts, mlir::gdr::kMaxSweepAccumulators);
  return recurrent_variant(spec, s);
}

}  // namespace gdr::compiler
