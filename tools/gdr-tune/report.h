// gdr-tune's report: <prefix>.md for people (per (T, threads), every
// candidate of each round sorted by median, winners marked, ratios against
// the baselines, fraction of the FMA peak) and <prefix>.json (the records).
#pragma once

#include <string>
#include <vector>

#include "../common/peak.h"
#include "gdr/status.h"
#include "tuner.h"

namespace gdr::tune {

struct ReportContext {
  std::string command;  // the command line, as run
  std::string machine;  // CPU, triple, LLVM
  bench::MachinePeak peak;
  TuneOptions options;
  std::string db_path;  // where the winners went ("" if nowhere)
};

std::string report_markdown(const ReportContext& context, const std::vector<CaseResult>& cases);
std::string report_json(const ReportContext& context, const std::vector<CaseResult>& cases);

// Writes <prefix>.md and <prefix>.json, creating the folder.
Status write_report(const std::string& prefix, const ReportContext& context,
                    const std::vector<CaseResult>& cases);

// The route auto takes for this case: what plan() picks from a database of
// this case's winners.
Route auto_choice(const CaseResult& c, const TuneOptions& options);

}  // namespace gdr::tune
