// gdr-tune's plots, written next to the Markdown report and linked from it:
// time per token against T per route with the crossover marked, the
// chunked route's chunk x vector width grid as heat maps, and decode's state
// bandwidth against the copy floor. What they show is also said in words
// (crossovers(), decode_lines()), so the text and the plots agree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "report.h"

namespace gdr::tune {

struct Plot {
  std::string suffix;   // "-time-per-token.svg": the file is <prefix><suffix>
  std::string caption;  // the Markdown's alt text
  std::string svg;
};

// Where the route auto takes changes, per thread count, between two
// consecutive tuned T: `below` up to T_from - 1, `from` from T_from (the
// first T of the database bucket of T_after: the searched crossover where
// the search ran, `search`, else the tuned Ts' geometric mean).
struct Crossover {
  int threads = 1;
  Route below = Route::Recurrent, from = Route::Chunked;
  int64_t T_before = 0, T_after = 0, T_from = 0;
  const CrossoverSearch* search = nullptr;
};
std::vector<Crossover> crossovers(const ReportContext& context, const std::vector<CaseResult>& cases);

// The decode cases (T <= kDecodeT): one Markdown line per route's winner
// with its time, state bandwidth and ratio to the copy floor.
constexpr int64_t kDecodeT = 4;
std::vector<std::string> decode_lines(const ReportContext& context, const std::vector<CaseResult>& cases);

// The three plots, always all three (a plot without data says so), with
// these suffixes in this order.
inline constexpr const char* kPlotSuffixes[] = {"-time-per-token.svg", "-chunked-grid.svg", "-decode-bandwidth.svg"};
std::vector<Plot> report_plots(const ReportContext& context, const std::vector<CaseResult>& cases);

}  // namespace gdr::tune
