#include "plots.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "svg_plot.h"

namespace gdr::tune {

namespace {

std::string threads_text(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

double winner_ns(const CaseResult& c, Route r) {
  auto it = c.winners.find(r);
  return it == c.winners.end() ? 0 : c.entries[it->second].median_ns[c.final_round];
}

// The states of one call: a varlen call has one per sequence.
double states(const TuneOptions& o) { return o.form.seqlens.empty() ? double(o.B) : double(o.form.seqlens.size()); }

// The state's bytes one call must move at least: every initial state read
// and every final state written once.
double state_bytes(const TuneOptions& o) { return 2.0 * 4.0 * states(o) * double(o.H) * double(o.K) * double(o.V); }


// The copy floor of a call: its state bytes at the measured copy bandwidth
// (read + write bytes per second, one thread).
double floor_ns(const ReportContext& ctx) {
  return ctx.peak.copy_gbps_1t > 0 ? state_bytes(ctx.options) / ctx.peak.copy_gbps_1t : 0;
}

std::set<int> thread_counts(const std::vector<CaseResult>& cases) {
  std::set<int> out;
  for (const CaseResult& c : cases) out.insert(c.threads);
  return out;
}

// A series per thread count and route (dashed: more than one thread): a
// point per case `keep` takes where the route has a winner, point() of the
// case and the winner's median.
std::vector<svg::Series> winner_series(const std::vector<CaseResult>& cases,
                                       const std::function<bool(const CaseResult&)>& keep,
                                       const std::function<svg::Point(const CaseResult&, double ns)>& point) {
  std::vector<svg::Series> out;
  for (int threads : thread_counts(cases))
    for (Route r : {Route::Recurrent, Route::Chunked}) {
      svg::Series s;
      s.name = std::string(route_name(r)) + ", " + threads_text(threads);
      s.dashed = threads > 1;
      for (const CaseResult& c : cases)
        if (c.threads == threads && keep(c) && winner_ns(c, r) > 0) s.points.push_back(point(c, winner_ns(c, r)));
      if (!s.points.empty()) out.push_back(s);
    }
  return out;
}

svg::LinePlot time_per_token(const ReportContext& ctx, const std::vector<CaseResult>& cases) {
  svg::LinePlot p;
  p.title = "Time per token against T (route winners)";
  p.x_label = "T (tokens per sequence; varlen: their mean)";
  p.y_label = "time per token, µs (call time / tokens)";
  p.log_x = p.log_y = true;
  p.empty_note = "no route winner was timed";
  p.series = winner_series(
      cases, [](const CaseResult&) { return true; },
      [&](const CaseResult& c, double ns) -> svg::Point {
        return {double(ctx.options.planned_T(c.T)), ns / 1e3 / double(ctx.options.B * c.T), ""};
      });
  for (const Crossover& x : crossovers(ctx, cases))
    p.vertical.push_back({double(x.T_from),
                          std::string(route_name(x.from)) + " from T = " + std::to_string(x.T_from) + " (" +
                              threads_text(x.threads) + ")",
                          x.threads > 1});
  return p;
}

svg::HeatMap chunked_grid(const ReportContext& ctx, const std::vector<CaseResult>& cases) {
  svg::HeatMap m;
  m.title = "Chunked route: chunk size x vector width (round 1 medians)";
  m.x_label = "vector width (floats)";
  m.y_label = "chunk (tokens)";
  m.scale_note = "per panel: darkest = fastest, lightest = slowest (log scale); cell: median time, x the fastest";
  m.empty_note = ctx.options.routes.count(Route::Chunked)
                     ? "no chunked candidate was timed (the budget cut the run, or each failed its check)"
                     : "the chunked route was not searched (--routes)";
  const std::vector<schedules::Schedule> space = chunked_space(ctx.options.widths);
  std::vector<int> chunks, widths;
  for (const schedules::Schedule& s : space) {
    if (std::find(chunks.begin(), chunks.end(), s.chunk) == chunks.end()) chunks.push_back(s.chunk);
    if (std::find(widths.begin(), widths.end(), s.vector_width) == widths.end()) widths.push_back(s.vector_width);
  }
  for (int w : widths) m.columns.push_back(std::to_string(w));
  for (int c : chunks) m.rows.push_back(std::to_string(c));
  for (const CaseResult& c : cases) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    svg::HeatPanel panel;
    panel.title = "T = " + std::to_string(c.T) + ", " + threads_text(c.threads);
    panel.values.assign(chunks.size(), std::vector<double>(widths.size(), nan));
    double best = std::numeric_limits<double>::infinity();
    for (const Entry& e : c.entries) {
      if (e.candidate.route != Route::Chunked || !e.timed(1) || !e.timing_error.empty()) continue;
      const auto row = std::find(chunks.begin(), chunks.end(), e.candidate.variant.chunked.chunk) - chunks.begin();
      const auto col =
          std::find(widths.begin(), widths.end(), e.candidate.variant.chunked.vector_width) - widths.begin();
      if (row == static_cast<long>(chunks.size()) || col == static_cast<long>(widths.size())) continue;
      double& cell = panel.values[row][col];
      cell = std::isnan(cell) ? e.median_ns[1] : std::min(cell, e.median_ns[1]);  // the best per cell
      best = std::min(best, e.median_ns[1]);
    }
    if (!std::isfinite(best)) continue;
    panel.text.assign(chunks.size(), std::vector<std::string>(widths.size()));
    for (size_t r = 0; r < chunks.size(); ++r)
      for (size_t k = 0; k < widths.size(); ++k)
        if (!std::isnan(panel.values[r][k])) {
          char ratio[32];
          std::snprintf(ratio, sizeof ratio, "\n%.2fx", panel.values[r][k] / best);
          panel.text[r][k] = duration_text(panel.values[r][k], 3) + ratio;
        }
    m.panels.push_back(panel);
  }
  return m;
}

svg::LinePlot decode_bandwidth(const ReportContext& ctx, const std::vector<CaseResult>& cases) {
  svg::LinePlot p;
  p.title = "Decode (T <= " + std::to_string(kDecodeT) + "): state bandwidth against the copy floor";
  p.x_label = "T (tokens per sequence; varlen: their mean)";
  p.y_label = "state bytes (read + write) / time, GB/s";
  p.log_x = true;
  p.x_min = 1, p.x_max = kDecodeT;
  p.empty_note = "no decode case (T <= " + std::to_string(kDecodeT) + ") was tuned";
  p.series = winner_series(
      cases, [&](const CaseResult& c) { return ctx.options.planned_T(c.T) <= kDecodeT; },
      [&](const CaseResult& c, double ns) -> svg::Point {
        char label[32] = "";
        if (floor_ns(ctx) > 0) std::snprintf(label, sizeof label, "%.2fx the floor", ns / floor_ns(ctx));
        return {double(ctx.options.planned_T(c.T)), state_bytes(ctx.options) / ns, label};
      });
  if (!p.series.empty() && ctx.peak.copy_gbps_1t > 0) {
    char label[96];
    std::snprintf(label, sizeof label, "copy floor: %.1f GB/s (64 MiB memory copy, 1 thread)", ctx.peak.copy_gbps_1t);
    p.horizontal.push_back({ctx.peak.copy_gbps_1t, label});
  }
  return p;
}

}  // namespace

std::vector<Crossover> crossovers(const ReportContext& ctx, const std::vector<CaseResult>& cases) {
  std::set<int64_t> tuned;
  for (const CaseResult& c : cases) tuned.insert(c.T);
  const std::vector<int64_t> sorted_T(tuned.begin(), tuned.end());
  std::vector<Crossover> out;
  for (int threads : thread_counts(cases)) {
    const CaseResult* before = nullptr;
    Route before_route = Route::Recurrent;
    for (int64_t T : sorted_T)
      for (const CaseResult& c : cases) {
        if (c.T != T || c.threads != threads || c.winners.empty()) continue;
        const Route r = auto_choice(c, ctx.options);
        if (before && r != before_route) {
          const size_t i = std::find(sorted_T.begin(), sorted_T.end(), T) - sorted_T.begin();
          Crossover x{threads, before_route, r, before->T, T, bucket(sorted_T, i).first};
          for (const CrossoverSearch& s : ctx.searches)
            if (s.threads == threads && s.T_below == before->T && s.T_above == T) {
              x.T_from = s.T_from;
              x.search = &s;
            }
          out.push_back(x);
        }
        before = &c;
        before_route = r;
      }
  }
  return out;
}

std::vector<std::string> decode_lines(const ReportContext& ctx, const std::vector<CaseResult>& cases) {
  std::vector<std::string> out;
  const double floor = floor_ns(ctx);
  for (const CaseResult& c : cases) {
    if (ctx.options.planned_T(c.T) > kDecodeT) continue;
    for (const auto& [route, i] : c.winners) {
      const double ns = c.entries[i].median_ns[c.final_round];
      char buf[256];
      std::snprintf(buf, sizeof buf, "T = %lld, %s: %s `%s` %s, %.1f GB/s of state, %.2fx the copy floor",
                    (long long)ctx.options.planned_T(c.T), threads_text(c.threads).c_str(), route_name(route),
                    c.entries[i].candidate.schedule.c_str(), duration_text(ns).c_str(),
                    state_bytes(ctx.options) / ns, floor > 0 ? ns / floor : 0.0);
      out.push_back(buf);
    }
  }
  if (!out.empty() && floor > 0) {
    char buf[300];
    const double kib = state_bytes(ctx.options) / 2 / 1024;
    // The floor of states in memory: states that stay in the caches (a
    // small shape) beat it (a review: 0.84x at 32 KiB).
    std::snprintf(buf, sizeof buf,
                  "copy floor: %s (%.4g %s of state read and written at the %.1f GB/s a 64 MiB memory copy "
                  "measured, 1 thread; states that stay in the caches can beat it)",
                  duration_text(floor).c_str(), kib < 1024 ? kib : kib / 1024, kib < 1024 ? "KiB" : "MiB",
                  ctx.peak.copy_gbps_1t);
    out.insert(out.begin(), buf);
  }
  return out;
}

std::vector<Plot> report_plots(const ReportContext& ctx, const std::vector<CaseResult>& cases) {
  return {{kPlotSuffixes[0], "time per token against T per route", svg::line_plot(time_per_token(ctx, cases))},
          {kPlotSuffixes[1], "chunked route: chunk x vector width", svg::heat_map(chunked_grid(ctx, cases))},
          {kPlotSuffixes[2], "decode bandwidth against the copy floor", svg::line_plot(decode_bandwidth(ctx, cases))}};
}

}  // namespace gdr::tune
