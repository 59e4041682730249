#include "report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "gdr/compiler/plan.h"
#include "gdr/compiler/target.h"
#include "gdr/compiler/tuning_db.h"
#include "gdr/support/atomic_file.h"
#include "gdr/support/staged_outputs.h"
#include "json_text.h"
#include "plots.h"

namespace gdr::tune {

namespace {

std::string format(const char* fmt, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, x);
  return buf;
}

// A JSON number; null where printf would write inf or nan (a candidate that
// failed its check has error +inf), which JSON does not have.
std::string json_number(const char* fmt, double x) { return std::isfinite(x) ? format(fmt, x) : "null"; }

using tools::json_string;

struct Figures {
  double gflops = 0, peak_fraction = 0;
  double vs_two_pass = 0, vs_chunked = 0;  // 0: baseline not measured
};

Figures figures(const ReportContext& ctx, const CaseResult& c, const Entry& e, int round) {
  const TuneOptions& o = ctx.options;
  Figures f;
  const double ns = e.median_ns[round];
  f.gflops = tools::op_flops(o.B, o.H, c.T, o.K, o.V, o.readouts) / ns;
  const double peak = c.threads >= 2 ? ctx.peak.fma_gflops_2t : ctx.peak.fma_gflops_1t;
  f.peak_fraction = peak > 0 ? f.gflops / peak : 0;
  auto ratio = [&](Route base) {
    auto it = c.baseline_ns[round].find(base);
    return it == c.baseline_ns[round].end() ? 0.0 : it->second / ns;
  };
  f.vs_two_pass = ratio(Route::BaselineTwoPass);
  f.vs_chunked = ratio(Route::BaselineChunked);
  return f;
}

std::string ratio_text(double r) { return r > 0 ? format("%.2fx", r) : "-"; }

// "min 11.8 µs, max 14.1 µs, IQR 3.2%": how far a median can be trusted.
std::string spread_text(const tools::Spread& s, int reps) {
  if (reps < 2) return "1 rep: no spread";
  return "min " + duration_text(s.min, 3) + ", max " + duration_text(s.max, 3) + ", IQR " +
         format("%.1f%%", 100 * s.relative_iqr());
}

// One round's table, fastest first.
std::string round_table(const ReportContext& ctx, const CaseResult& c, int round) {
  std::vector<size_t> rows;
  for (size_t i = 0; i < c.entries.size(); ++i)
    if (c.entries[i].timed(round)) rows.push_back(i);
  std::sort(rows.begin(), rows.end(), [&](size_t a, size_t b) {
    return c.entries[a].median_ns[round] < c.entries[b].median_ns[round];
  });
  std::string md =
      "| | candidate | median | spread | reps | GFLOP/s | % of FMA peak | vs baseline-two-pass | "
      "vs baseline-chunked | check: error vs float64 |\n|---|---|---|---|---|---|---|---|---|---|\n";
  for (size_t i : rows) {
    const Entry& e = c.entries[i];
    const Figures f = figures(ctx, c, e, round);
    const std::string mark = round == c.final_round && e.winner ? "**winner**" : "";
    md += "| " + mark + " | " + e.candidate.name() + " | " + duration_text(e.median_ns[round]) + " | " +
          spread_text(e.spread[round], e.reps[round]) + " | " + std::to_string(e.reps[round]) + " | " + format("%.1f", f.gflops) + " | " +
          format("%.1f%%", 100 * f.peak_fraction) + " | " + ratio_text(f.vs_two_pass) + " | " +
          ratio_text(f.vs_chunked) + " | " +
          (e.timing_error.empty() ? "ok, " + format("%.1e", e.check.error)
                                  : "failed while timed: " + e.timing_error) +
          " |\n";
  }
  return md;
}

}  // namespace

std::string duration_text(double ns, int digits) {
  char buf[64];
  // Below 1 ms as printed: 999,960 ns at 4 digits is "1 ms", not "1000 µs".
  std::snprintf(buf, sizeof buf, "%.*g", digits, ns / 1e3);
  if (std::strtod(buf, nullptr) < 1000) return std::string(buf) + " µs";
  std::snprintf(buf, sizeof buf, "%.*g ms", digits, ns / 1e6);
  return buf;
}

Route auto_choice(const CaseResult& c, const TuneOptions& o) {
  const compiler::Target& host = compiler::host_target();
  std::vector<compiler::TuningRecord> records;
  for (const auto& [route, i] : c.winners) {
    compiler::TuningRecord r;
    r.host_cpu = host.cpu;
    r.K = o.K, r.V = o.V, r.T_min = r.T_max = c.T, r.threads = c.threads;
    r.route = route;
    r.schedule = c.entries[i].candidate.schedule;
    r.median_ns = c.entries[i].median_ns[c.final_round];
    r.decay = o.decay;
    r.readouts = o.readouts;
    r.form = c.form;
    records.push_back(r);
  }
  return compiler::plan(compiler::TuningDb(std::move(records), host), Route::Auto,
                        o.spec(), c.T, c.threads, c.form)
      .variant.route;
}

std::string report_markdown(const ReportContext& ctx, const std::vector<CaseResult>& cases) {
  const TuneOptions& o = ctx.options;
  std::string md = "# gdr-tune report\n\n";
  md += "- command: `" + ctx.command + "`\n";
  md += "- machine: " + ctx.machine + "; FMA peak " + format("%.1f", ctx.peak.fma_gflops_1t) +
        " GFLOP/s on 1 thread, " + format("%.1f", ctx.peak.fma_gflops_2t) + " on 2 (" +
        std::to_string(ctx.peak.vector_bits) + "-bit vectors); copy " +
        format("%.1f", ctx.peak.copy_gbps_1t) + " GB/s\n";
  if (!ctx.shared_cores.empty()) md += "- **" + ctx.shared_cores + "**\n";
  md += "- shape: B = " + std::to_string(o.B) + ", H = " + std::to_string(o.H) + ", K = " +
        std::to_string(o.K) + ", V = " + std::to_string(o.V) +
        "; form: " + tools::form_text(call_form(o)) +
        "; effective GFLOP/s count 8 K V flops per token per state head, 2 K V more per further readout\n";
  md += "- timing: medians of interleaved repetitions, " +
        format("%g", o.seconds_per_candidate) +
        " s per candidate per round (at least 3 repetitions" +
        (ctx.budget_seconds > 0 ? std::string("; fewer where the budget stopped a round: its reps column says so") : "") +
        "); decay U(0.9, 1); spread: min, max and "
        "interquartile range (IQR, relative to the median) of the repetitions; two candidates tie within "
        "noise when their interquartile ranges overlap, and the simpler is kept (the default schedule, "
        "else less unrolling, fewer prefetched tokens, a smaller tile)\n";
  if (ctx.budget_seconds > 0) {
    md += "- budget: " + format("%g", ctx.budget_seconds) +
          " s for the whole run (--budget); the seconds per candidate were planned to fit it";
    bool cut = !ctx.not_tuned.empty();
    for (const CaseResult& c : cases) cut = cut || c.budget_cut;
    md += cut ? "; **the budget cut the run**: the best so far is kept (see the cases below)\n" : "\n";
    for (const std::string& what : ctx.not_tuned) md += "  - not tuned, the budget was spent: " + what + "\n";
  }
  md += "- check: every candidate first ran B = 1, H = 3, T = 70 with the same K and V against "
        "the float64 reference (contract bars: 1e-4 and 8x the float32 recurrence); a failing "
        "candidate is excluded, never timed\n";
  if (!ctx.db_path.empty()) md += "- tuning database: `" + ctx.db_path + "`\n";

  md += "\n## Plots\n\n";
  for (const Plot& p : report_plots(ctx, {}))
    md += "- [" + p.caption + "](" + ctx.name + p.suffix + ")\n";
  md += "\n![time per token](" + ctx.name + "-time-per-token.svg)\n\n";
  const std::vector<Crossover> xs = crossovers(ctx, cases);
  if (xs.empty()) md += "- crossover: none, auto takes one route at every tuned T\n";
  for (const Crossover& x : xs) {
    md += "- crossover, " + std::to_string(x.threads) + " thread" + (x.threads == 1 ? "" : "s") + ": " +
          route_name(x.below) + " up to T = " + std::to_string(x.T_from - 1) + ", " + route_name(x.from) +
          " from T = " + std::to_string(x.T_from) + " (between the tuned T = " + std::to_string(x.T_before) +
          " and " + std::to_string(x.T_after) + "; marked in the plot)";
    if (!x.search) {
      md += ": their geometric mean, not searched\n";
      continue;
    }
    const CrossoverSearch& s = *x.search;
    md += std::string(": searched, what each bucket runs") + (s.probes.empty() ? ", no probe" : ":");
    for (const CrossoverProbe& p : s.probes)
      md += " T = " + std::to_string(p.T) + " " + route_name(s.below) + " `" + p.below_schedule + "` " +
            duration_text(p.below_ns) + ", " + route_name(s.from) + " `" + p.from_schedule + "` " +
            duration_text(p.from_ns) + (&p == &s.probes.back() ? "" : ";");
    md += s.budget_cut ? " (the budget stopped the search)\n" : "\n";
  }
  for (const std::string& line : decode_lines(ctx, cases)) md += "- decode: " + line + "\n";

  std::string excluded;
  for (const CaseResult& c : cases) {
    md += "\n## T = " + std::to_string(c.T) + ", threads = " + std::to_string(c.threads) + "\n\n";
    if (c.budget_cut)
      md += c.final_round == 1 ? "- **budget**: spent in round 1; round 2 skipped, the winners are round 1's\n"
                               : "- **budget**: a round was stopped early; the winners are the best so far\n";
    if (ctx.budget_seconds > 0)
      md += "- seconds per candidate, planned for the budget: round 1 " + format("%.3g", c.seconds[1]) +
            (c.final_round == 2 ? " s, round 2 " + format("%.3g", c.seconds[2]) : std::string()) + " s\n";
    for (const auto& [route, i] : c.winners) {
      const Entry& e = c.entries[i];
      const Figures f = figures(ctx, c, e, c.final_round);
      md += std::string("- ") + route_name(route) + " winner: `" + e.candidate.schedule + "`, " +
            duration_text(e.median_ns[c.final_round]) + " (" + spread_text(e.spread[c.final_round], e.reps[c.final_round]) + "; " +
            std::to_string(e.reps[c.final_round]) + " reps), " + format("%.1f%%", 100 * f.peak_fraction) +
            " of peak, " + ratio_text(f.vs_two_pass) + " baseline-two-pass, " +
            ratio_text(f.vs_chunked) + " baseline-chunked\n";
      if (auto t = c.ties.find(route); t != c.ties.end()) {
        std::string others;
        for (size_t k : t->second)
          if (k != i)
            others += std::string(others.empty() ? "" : ", ") + "`" + c.entries[k].candidate.schedule + "` " +
                      duration_text(c.entries[k].median_ns[c.final_round]);
        md += std::string("  - tie within noise with ") + others + ": kept the " + (e.is_default ? "default" : "simpler") + " `" +
              e.candidate.schedule + "`\n";
      }
    }
    if (!c.winners.empty()) md += std::string("- auto runs: ") + route_name(auto_choice(c, o)) + "\n";
    md += "\n### Round 1: coarse (recurrent tiles at unroll 1, every chunked schedule)\n\n" +
          round_table(ctx, c, 1);
    md += "\n### Round 2: finalists (unroll 1, 2, 4 on the best recurrent tiles; the best chunked "
          "schedule; each route's default), winners from here\n\n" +
          (c.final_round == 2 ? round_table(ctx, c, 2) : "Skipped: the budget was spent.\n");
    for (const Entry& e : c.entries)
      if (!e.check.ok && excluded.find("| " + e.candidate.name() + " |") == std::string::npos)
        excluded += "| " + e.candidate.name() + " | " + e.check.why + " |\n";
  }
  md += "\n## Excluded candidates (failed the check)\n\n";
  md += excluded.empty() ? "None: every candidate matched the float64 reference.\n"
                         : "| candidate | why |\n|---|---|\n" + excluded;
  return md;
}

std::string report_json(const ReportContext& ctx, const std::vector<CaseResult>& cases) {
  const TuneOptions& o = ctx.options;
  std::string j = "[\n  {\"record\": \"machine\", \"machine\": " + json_string(ctx.machine) +
                  ", \"command\": " + json_string(ctx.command) +
                  ", \"fma_gflops_1t\": " + json_number("%.2f", ctx.peak.fma_gflops_1t) +
                  ", \"fma_gflops_2t\": " + json_number("%.2f", ctx.peak.fma_gflops_2t) +
                  ", \"copy_gbps_1t\": " + json_number("%.2f", ctx.peak.copy_gbps_1t) +
                  ", \"vector_bits\": " + std::to_string(ctx.peak.vector_bits) +
                  ", \"shared_cores\": " + (ctx.shared_cores.empty() ? "false" : "true") +
                  ", \"db\": " + json_string(ctx.db_path) + "}";
  for (const CaseResult& c : cases)
    for (const Entry& e : c.entries) {
      auto common = [&] {
        return "{\"record\": \"candidate\", \"B\": " + std::to_string(o.B) + ", \"H\": " +
               std::to_string(o.H) + ", \"K\": " + std::to_string(o.K) + ", \"V\": " +
               std::to_string(o.V) + ", \"T\": " + std::to_string(c.T) + ", " +
               tools::form_json(call_form(o), o.H) + ", \"readouts\": " + std::to_string(o.readouts) +
               ", \"threads\": " +
               std::to_string(c.threads) + ", \"route\": " + json_string(route_name(e.candidate.route)) +
               ", \"schedule\": " + json_string(e.candidate.schedule) + ", \"check\": " +
               json_string(e.check.ok ? "ok" : e.check.why) + ", \"check_error\": " +
               json_number("%.3e", e.check.error);
      };
      if (!e.timed(1) && !e.timed(2)) {
        j += ",\n  " + common() + ", \"round\": 0, \"winner\": false}";
        continue;
      }
      for (int round : {1, 2}) {
        if (!e.timed(round)) continue;
        const Figures f = figures(ctx, c, e, round);
        j += ",\n  " + common() + ", \"round\": " + std::to_string(round) + ", \"median_ns\": " +
             json_number("%.0f", e.median_ns[round]) + ", \"min_ns\": " + json_number("%.0f", e.spread[round].min) +
             ", \"q1_ns\": " + json_number("%.0f", e.spread[round].q1) + ", \"q3_ns\": " +
             json_number("%.0f", e.spread[round].q3) + ", \"max_ns\": " + json_number("%.0f", e.spread[round].max) +
             ", \"reps\": " + std::to_string(e.reps[round]) +
             ", \"gflops\": " + json_number("%.3f", f.gflops) + ", \"peak_fraction\": " +
             json_number("%.4f", f.peak_fraction) + ", \"vs_baseline_two_pass\": " +
             json_number("%.3f", f.vs_two_pass) + ", \"vs_baseline_chunked\": " +
             json_number("%.3f", f.vs_chunked) + ", \"timing_error\": " + json_string(e.timing_error) +
             ", \"winner\": " + (round == c.final_round && e.winner ? "true" : "false") + ", \"tie_within_noise\": " +
             (round == c.final_round && e.winner && c.ties.count(e.candidate.route) ? "true" : "false") + "}";
      }
    }
  for (const CrossoverSearch& s : ctx.searches) {
    j += ",\n  {\"record\": \"crossover\", \"threads\": " + std::to_string(s.threads) + ", \"T_below\": " +
         std::to_string(s.T_below) + ", \"T_above\": " + std::to_string(s.T_above) + ", \"below\": " +
         json_string(route_name(s.below)) + ", \"from\": " + json_string(route_name(s.from)) +
         ", \"T_from\": " + std::to_string(s.T_from) +
         ", \"budget_cut\": " + (s.budget_cut ? "true" : "false") + ", \"probes\": [";
    for (const CrossoverProbe& p : s.probes)
      j += std::string(&p == &s.probes.front() ? "" : ", ") + "{\"T\": " + std::to_string(p.T) +
           ", \"below_schedule\": " + json_string(p.below_schedule) + ", \"below_ns\": " +
           json_number("%.0f", p.below_ns) + ", \"from_schedule\": " + json_string(p.from_schedule) +
           ", \"from_ns\": " + json_number("%.0f", p.from_ns) + "}";
    j += "]}";
  }
  return j + "\n]\n";
}

std::vector<std::string> report_files(const std::string& prefix) {
  std::vector<std::string> files = {prefix + ".md", prefix + ".json"};
  for (const char* suffix : kPlotSuffixes) files.push_back(prefix + suffix);
  return files;
}

namespace {

// How each file gdr-tune writes begins (the SVG's height varies).
const char* report_start(const std::string& path) {
  auto ends_with = [&](const char* suffix) {
    const std::string s = suffix;
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (ends_with(".md")) return "# gdr-tune report\n";
  if (ends_with(".json")) return "[\n  {\"record\": \"machine\"";
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"";
}

// Whether `path`, which exists, begins as gdr-tune's file of its name does.
bool written_by_gdr_tune(const std::string& path) {
  const std::string start = report_start(path);
  std::ifstream in(path, std::ios::binary);
  std::string head(start.size(), '\0');
  in.read(head.data(), std::streamsize(head.size()));
  return in.gcount() == std::streamsize(start.size()) && head == start;
}

// An error if one of the report's files exists and is not gdr-tune's.
Status not_a_report(const std::string& prefix) {
  std::error_code ec;
  for (const std::string& file : report_files(prefix))
    if (std::filesystem::is_regular_file(file, ec) && !written_by_gdr_tune(file))
      return Status::error(file + " exists and is not a gdr-tune report; not replaced (remove it or give "
                                  "another --report)");
  return Status::success();
}

}  // namespace

Status stage_report(const std::string& prefix, support::StagedOutputs* outputs) {
  namespace fs = std::filesystem;
  if (prefix.empty() || prefix.back() == '/' || fs::path(prefix).filename() == "." ||
      fs::path(prefix).filename() == "..")
    return Status::error("names a folder; give a prefix for the files, such as reports/tune");
  if (Status s = not_a_report(prefix); !s) return s;
  std::error_code ec;
  // The folders, created now and removed again if staging fails.
  std::vector<fs::path> created;
  for (fs::path p = fs::path(prefix).parent_path(); !p.empty() && !fs::exists(p, ec); p = p.parent_path())
    created.push_back(p);
  std::reverse(created.begin(), created.end());
  auto remove_created = [&] {
    for (auto it = created.rbegin(); it != created.rend(); ++it) fs::remove(*it, ec);
  };
  for (const fs::path& p : created)
    if (!fs::create_directory(p, ec) && ec) {
      const std::string why = "cannot create the folder " + p.string() + ": " + ec.message();
      remove_created();
      return Status::error(why);
    }
  for (const std::string& file : report_files(prefix)) {
    // A run killed before its commit (SIGKILL, the OOM killer) leaves its
    // temporaries: swept when an hour old, as the database's.
    const fs::path path(file);
    const std::string name = path.filename().string();
    support::sweep_stale_temporaries_once(path.has_parent_path() ? path.parent_path().string() : ".", name,
                                          [&](const std::string& f) { return support::is_temporary_of(f, name); });
    if (Status s = outputs->add(file, file); !s) {
      outputs->abandon();
      remove_created();
      return s;
    }
  }
  return Status::success();
}

Status write_report(const std::string& prefix, support::StagedOutputs& outputs, const ReportContext& context,
                    const std::vector<CaseResult>& cases) {
  // In report_files' order, as staged.
  std::vector<std::string> texts = {report_markdown(context, cases), report_json(context, cases)};
  for (Plot& p : report_plots(context, cases)) texts.push_back(std::move(p.svg));
  // Checked again: a user's file may have appeared there during the run.
  Status s = texts.size() == report_files(prefix).size()
                 ? not_a_report(prefix)
                 : Status::error("the report's texts do not match its files (a bug)");
  for (size_t i = 0; s && i < texts.size(); ++i) s = outputs.write(i, {texts[i]});
  if (!s) {
    outputs.abandon();
    return s;
  }
  return outputs.commit();
}

}  // namespace gdr::tune
