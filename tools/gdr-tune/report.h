// gdr-tune's report: <prefix>.md for people (per (T, threads), every
// candidate of each round sorted by median, winners marked, ratios against
// the baselines, fraction of the FMA peak, links to the plots) and
// <prefix>.json (the records).
#pragma once

#include <string>
#include <vector>

#include "../common/peak.h"
#include "gdr/status.h"
#include "gdr/support/staged_outputs.h"
#include "crossover.h"
#include "tuner.h"

namespace gdr::tune {

struct ReportContext {
  std::string command;  // the command line, as run
  std::string machine;  // CPU, triple, LLVM
  bench::MachinePeak peak;
  std::string shared_cores;  // bench::shared_cores_warning of the peak ("" if none)
  TuneOptions options;
  std::string db_path;  // where the winners went ("" if nowhere)
  std::string name;     // the prefix's file name, which the plots' links start with
  double budget_seconds = 0;        // --budget; 0: none
  std::vector<std::string> not_tuned;  // "T = 512, threads = 2": cases the budget left out
  std::vector<CrossoverSearch> searches;  // where auto's route changes, searched
};

// A duration for people: µs below 1 ms, ms above, `digits` significant.
std::string duration_text(double ns, int digits = 4);

std::string report_markdown(const ReportContext& context, const std::vector<CaseResult>& cases);
std::string report_json(const ReportContext& context, const std::vector<CaseResult>& cases);

// The files write_report writes: <prefix>.md, <prefix>.json and the plots
// (<prefix>-*.svg, plots.h).
std::vector<std::string> report_files(const std::string& prefix);

// Stages report_files(prefix) in *outputs, in that order, before any work:
// creates the missing folders (removed again on failure), refuses a prefix
// that names a folder, a file that is not one gdr may replace (a FIFO, two
// names of one file) and an existing file that is not a gdr-tune report or
// plot (the user's notes.md, a project's doc: never clobbered).
Status stage_report(const std::string& prefix, support::StagedOutputs* outputs);

// Writes the report into the outputs stage_report(prefix) staged and
// commits them: all of them or none (none if a file that is not a report
// appeared at one of their paths meanwhile).
Status write_report(const std::string& prefix, support::StagedOutputs& outputs, const ReportContext& context,
                    const std::vector<CaseResult>& cases);

// The route auto takes for this case: what plan() picks from a database of
// this case's winners.
Route auto_choice(const CaseResult& c, const TuneOptions& options);

}  // namespace gdr::tune
