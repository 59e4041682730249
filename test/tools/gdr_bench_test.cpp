// gdr-bench's flags: a duration must be a finite positive number (--seconds
// inf used to run forever), said in one line before any measurement; the
// call's form flags are printed, written to every JSON record and counted in
// the flops; recurrent@ and chunked@ name the schedule an implementation runs,
// library:FILE:SYMBOL a kernel library it loads.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "temp_dir.h"

namespace gdr::test {
namespace {

TEST(GdrBenchTest, DurationsMustBeFinite) {
  const TempDir dir("gdr-bench-test");
  for (const char* seconds : {"inf", "nan", "-1", "1e999", "2x"}) {
    const std::string cmd = std::string("timeout 60 ") + GDR_BENCH_PATH +
                            " --impl reference --T 1 --H 1 --seconds " + seconds + " --json " +
                            dir.path("b.json") + " > /dev/null 2> " + dir.path("err.txt");
    const int status = std::system(cmd.c_str());
    std::ifstream in(dir.path("err.txt"));
    std::stringstream err;
    err << in.rdbuf();
    EXPECT_EQ(WEXITSTATUS(status), 2) << seconds << ": " << err.str();
    EXPECT_EQ(err.str(), std::string("gdr-bench: --seconds: expected a number > 0 and <= 86400, got '") +
                             seconds + "'\n");
    EXPECT_FALSE(std::ifstream(dir.path("b.json")).good());
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs gdr-bench with `args`; its exit code, stdout and stderr (left in
// out.txt and err.txt too).
int bench(const TempDir& dir, const std::string& args, std::string* out, std::string* err) {
  const std::string cmd = std::string("timeout 120 ") + GDR_BENCH_PATH + " " + args + " > " +
                          dir.path("out.txt") + " 2> " + dir.path("err.txt");
  const int status = std::system(cmd.c_str());
  *out = read_file(dir.path("out.txt"));
  *err = read_file(dir.path("err.txt"));
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Runs python3 (a build dependency) on `script` with the JSON file `json`
// as its argument: its exit status, 0 if the script's asserts hold.
int check_json(const TempDir& dir, const std::string& script, const std::string& json) {
  std::ofstream(dir.path("check.py")) << script;
  return std::system(("python3 " + dir.path("check.py") + " " + json).c_str());
}

// Every form flag at once (GVA, scalar decay, token-major, varlen with an
// empty and a one-token sequence, in place): printed in the form line, each
// implementation agrees with the first, and every JSON record carries the
// form, with T the sequences' sum and B = 1.
TEST(GdrBenchTest, FormFlagsArePrintedAndRecorded) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference,baseline-two-pass,baseline-chunked --H 4 --Hk 2 --decay scalar "
                       "--layout bthd --seqlens 30,0,1,7 --in-place 1 --K 16 --V 16 --threads 1 --seconds 0.01 "
                       "--json " + dir.path("b.json"), &out, &err),
            0) << err;
  EXPECT_NE(out.find("form: Hk=2 Hq=H decay=scalar layout=bthd seqlens=30,0,1,7 in_place=1\n"),
            std::string::npos) << out;
  EXPECT_EQ(out.find("WARNING"), std::string::npos) << out;
  // python3 is a build dependency: the JSON parses and each record has the form.
  const std::string check =
      "import json, sys\n"
      "r = json.load(open(sys.argv[1]))\n"
      "assert r[0]['impl'] == 'machine'\n"
      "assert r[0]['shared_cores'] in (True, False), r[0]\n"
      "assert len(r) == 4, r\n"
      "for x in r[1:]:\n"
      "    want = dict(B=1, H=4, T=38, Hk=2, Hq=4, decay='scalar', layout='bthd', seqlens=[30, 0, 1, 7], in_place=True)\n"
      "    assert all(x[k] == v for k, v in want.items()), x\n";
  EXPECT_EQ(check_json(dir, check, dir.path("b.json")), 0)
      << read_file(dir.path("b.json"));
}

// A row says the threads it ran on: the two-pass baseline is serial
// (before, its rows said the case's 2 and took 2 threads' peak).
TEST(GdrBenchTest, RowsSayTheThreadsTheyRanOn) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread";
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference,baseline-two-pass --H 4 --T 3 --K 16 --V 8 --threads 2 --seconds 0.01 "
                       "--json " + dir.path("b.json"), &out, &err),
            0) << err;
  const std::string check =
      "import json, sys\n"
      "r = {x['impl']: (x['threads'], x['threads_ran']) for x in json.load(open(sys.argv[1]))[1:]}\n"
      "assert r == {'reference': (2, 2), 'baseline-two-pass': (2, 1)}, r\n";
  EXPECT_EQ(check_json(dir, check, dir.path("b.json")), 0) << out;
  EXPECT_NE(out.find("\nbaseline-two-pass      1    4     3   16    8   1 "), std::string::npos) << out;
}

// The default form is recorded too, and grouped readout (Hq = 2 H) counts
// its second readout: gflops = (8 + 2) K V T B H / median_ns.
TEST(GdrBenchTest, ReadoutFlopsAreCounted) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  for (const char* hq : {"", "--Hq 4"}) {
    ASSERT_EQ(bench(dir, std::string("--impl reference --H 2 ") + hq + " --T 9 --B 2 --K 16 --V 8 --threads 1 "
                         "--seconds 0.01 --json " + dir.path("b.json"), &out, &err),
              0) << err;
    const bool grouped = *hq != '\0';
    EXPECT_NE(out.find(std::string("form: Hk=H Hq=") + (grouped ? "4" : "H") +
                       " decay=channel layout=bhtd seqlens=- in_place=0\n"),
              std::string::npos) << out;
    const std::string check =
        std::string("import json, sys\n"
                    "x = json.load(open(sys.argv[1]))[1]\n"
                    "assert (x['Hk'], x['Hq'], x['decay'], x['layout'], x['seqlens'], x['in_place']) == ") +
        (grouped ? "(2, 4" : "(2, 2") + ", 'channel', 'bhtd', [], False), x\n"
        "flops = " + (grouped ? "10" : "8") + " * 16 * 8 * 9 * 2 * 2\n"
        "assert abs(x['gflops'] - flops / x['median_ns']) <= 1e-3 + 1e-3 * x['gflops'], x\n";
    EXPECT_EQ(check_json(dir, check, dir.path("b.json")), 0)
        << hq << ": " << read_file(dir.path("b.json"));
  }
}

// %peak is against the FMA peak measured during the case (interleaved with
// its implementations): said on a `peak:` line per case, recorded, and the
// printed fraction is gflops / that peak.
TEST(GdrBenchTest, PercentOfPeakIsAgainstThePeakInterleavedWithTheCase) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference --H 2 --T 9,17 --K 16 --V 8 --threads 1 --seconds 0.01 --json " +
                           dir.path("b.json"), &out, &err),
            0) << err;
  size_t peaks = 0;
  for (size_t at = out.find("  peak: FMA "); at != std::string::npos; at = out.find("  peak: FMA ", at + 1))
    ++peaks;
  EXPECT_EQ(peaks, 2u) << out;
  // The table row's %peak, recomputed from the record.
  const std::string check =
      "import json, re, sys\n"
      "records = json.load(open(sys.argv[1]))[1:]\n"
      "rows = [l.split() for l in open(sys.argv[2]) if l.startswith('reference ')]\n"
      "assert len(records) == len(rows) == 2, (records, rows)\n"
      "for x, row in zip(records, rows):\n"
      "    assert x['peak_gflops'] > 0, x\n"
      "    printed = float(row[9].rstrip('%'))\n"
      "    assert abs(printed - 100 * x['gflops'] / x['peak_gflops']) <= 0.06 + 0.01 * printed, (printed, x)\n";
  EXPECT_EQ(check_json(dir, check, dir.path("b.json") + " " + dir.path("out.txt")), 0)
      << read_file(dir.path("b.json")) << out;
}

// Each row says how noisy its median is: the repetitions' interquartile
// range over the median (the iqr column), from the quartiles its record
// keeps (q1_ns, q3_ns).
TEST(GdrBenchTest, EachRowSaysTheSpreadOfItsRepetitions) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference,baseline-two-pass --H 2 --T 9 --K 16 --V 8 --threads 1 --seconds 0.02 "
                       "--json " + dir.path("b.json"), &out, &err),
            0) << err;
  EXPECT_NE(out.find(" iqr\n"), std::string::npos) << out;
  const std::string check =
      "import json, sys\n"
      "records = json.load(open(sys.argv[1]))[1:]\n"
      "rows = [l.split() for l in open(sys.argv[2]) if l.startswith(('reference ', 'baseline-two-pass '))]\n"
      "assert len(records) == len(rows) == 2, (records, rows)\n"
      "for x, row in zip(records, rows):\n"
      "    assert x['reps'] >= 3 and 0 < x['q1_ns'] <= x['median_ns'] <= x['q3_ns'], x\n"
      "    printed = float(row[12].rstrip('%'))\n"
      "    iqr = 100 * (x['q3_ns'] - x['q1_ns']) / x['median_ns']\n"
      // The record's nanoseconds are rounded: 1.5 ns over a median of
      // thousands.
      "    assert abs(printed - iqr) <= 0.06 + 100 * 1.5 / x['median_ns'], (printed, x)\n";
  EXPECT_EQ(check_json(dir, check, dir.path("b.json") + " " + dir.path("out.txt")), 0)
      << read_file(dir.path("b.json")) << out;
}

// Each decode case (T <= 4) with a T = 0 case of the same implementation,
// shape and threads says its ratio to that state copy and its state
// bandwidth; prefill and the T = 0 case itself do not.
TEST(GdrBenchTest, DecodeCasesAreSaidAgainstTheirStateCopy) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference --H 2 --T 0,1,3,5 --K 16 --V 8 --threads 1 --seconds 0.01 --json " +
                           dir.path("b.json"), &out, &err),
            0) << err;
  const std::string check =
      "import json, re, sys\n"
      "medians = {x['T']: x['median_ns'] for x in json.load(open(sys.argv[1]))[1:]}\n"
      "lines = [l for l in open(sys.argv[2]) if l.startswith('  floor: ')]\n"
      "assert len(lines) == 2, lines\n"
      "for T, line in zip((1, 3), lines):\n"
      "    m = re.match(r'  floor: reference ([0-9.]+)x its T=0 call; state read \\+ written at ([0-9.]+) GB/s, "
      "([0-9.]+)x the copy bandwidth measured at the start$', line)\n"
      "    assert m, line\n"
      // The records' medians are whole nanoseconds: at a 200 ns T = 0 call
      // (AMD Zen 5) their rounding alone moves the ratio by 0.01.
      "    ratio = medians[T] / medians[0]\n"
      "    rounding = ratio * (0.5 / medians[0] + 0.5 / medians[T])\n"
      "    assert abs(float(m.group(1)) - ratio) <= 0.006 + rounding, (line, medians)\n"
      "    assert abs(float(m.group(2)) - 2 * 4 * 2 * 16 * 8 / medians[T]) <= 0.06, (line, medians)\n";
  EXPECT_EQ(check_json(dir, check, dir.path("b.json") + " " + dir.path("out.txt")), 0) << out;
  // In place, T = 0 has nothing to do (no task runs): no ratio to it.
  ASSERT_EQ(bench(dir, "--impl reference --H 2 --T 0,1 --K 16 --V 8 --threads 1 --seconds 0.01 --in-place 1", &out,
                  &err),
            0) << err;
  const size_t floor = out.find("  floor: ");
  ASSERT_NE(floor, std::string::npos) << out;
  EXPECT_EQ(out.find("  floor: ", floor + 1), std::string::npos) << out;
  const std::string no_ratio = "  floor: reference state read + written at ";
  EXPECT_EQ(out.compare(floor, no_ratio.size(), no_ratio), 0) << out;
}

// A form that does not fit: one line naming the flag, exit 2, no JSON.
TEST(GdrBenchTest, BadFormFlagsAreOneLine) {
  const TempDir dir("gdr-bench-test");
  const std::pair<const char*, const char*> cases[] = {
      {"--H 4,6 --Hk 4", "gdr-bench: --Hk 4 does not divide --H 6\n"},
      {"--Hq 6", "gdr-bench: --Hq 6: neither it nor --H 4 is a multiple of the other\n"},
      {"--decay diagonal", "gdr-bench: --decay: expected scalar or channel, got 'diagonal'\n"},
      {"--layout hbtd", "gdr-bench: --layout: expected bhtd or bthd, got 'hbtd'\n"},
      {"--seqlens 3,4 --T 7", "gdr-bench: --seqlens: T is their sum; give --seqlens or --T, not both\n"},
      {"--seqlens 3,4 --B 2", "gdr-bench: --seqlens: a variable-length batch has B = 1, got --B 2\n"},
      {"--seqlens 3,-4", "gdr-bench: --seqlens: expected comma-separated integers in [0, 1048576], got '3,-4'\n"},
      {"--in-place yes", "gdr-bench: --in-place: expected an integer in [0, 1], got 'yes'\n"},
  };
  // More threads than the runtime's pool: rows would be labelled with
  // threads that never ran.
  {
    std::string out, err;
    EXPECT_EQ(bench(dir, "--impl reference --H 4 --threads 1000", &out, &err), 2);
    EXPECT_EQ(err.rfind("gdr-bench: --threads: expected comma-separated integers in [1, ", 0), 0u) << err;
    EXPECT_NE(err.find("], got '1000'\n"), std::string::npos) << err;
  }
  for (const auto& [args, message] : cases) {
    std::string out, err;
    const std::string H = std::string(args).find("--H ") == std::string::npos ? "--H 4 " : "";
    EXPECT_EQ(bench(dir, "--impl reference " + H + args + " --json " + dir.path("b.json"), &out,
                    &err),
              2) << args;
    EXPECT_EQ(err, message) << args;
    EXPECT_FALSE(std::ifstream(dir.path("b.json")).good()) << args;
  }
}

// A +cached or +streaming suffix sets how one implementation writes final
// states, +out-cached or +out-streaming its outputs (both may be given):
// its rows and records keep the name; another suffix is one line.
TEST(GdrBenchTest, StateStoresSuffixNamesTheImplementation) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference+cached,reference+streaming+out-streaming --H 2 --K 16 --V 16 --T 0,1 --threads 1 "
                       "--seconds 0.01 --json " + dir.path("b.json"), &out, &err),
            0) << err;
  for (const char* row :
       {"\nreference+cached ", "\nreference+streaming+out-streaming ", "floor: reference+streaming+out-streaming "})
    EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  EXPECT_EQ(out.find("WARNING"), std::string::npos) << out;
  EXPECT_EQ(check_json(dir,
                       "import json, sys\n"
                       "r = json.load(open(sys.argv[1]))\n"
                       "assert [x['impl'] for x in r[1:]] == \\\n"
                       "    ['reference+cached', 'reference+streaming+out-streaming'] * 2, r\n",
                       dir.path("b.json")),
            0);
  for (const char* impl : {"reference+fast", "reference+out-fast+cached"}) {
    EXPECT_EQ(bench(dir, std::string("--impl ") + impl + " --H 2 --json " + dir.path("c.json"), &out, &err), 2);
    EXPECT_EQ(err, std::string("gdr-bench: --impl ") + impl +
                       ": a suffix must be +cached, +streaming, +out-cached or +out-streaming\n");
  }
  EXPECT_FALSE(std::ifstream(dir.path("c.json")).good());
}

// --shapes: every implementation over every shape in one run and one table
// (one header, a row per implementation and case), each record with its
// shape's K, V, H, T and key/query heads; a shape's unset keys come from
// the flags (--T 5, --B 2).
TEST(GdrBenchTest, ShapesRunInOneTable) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference,baseline-two-pass --shapes 'K=16,V=8,H=2;K=8,V=4,H=4,Hk=2,T=3' --T 5 "
                       "--B 2 --threads 1 --seconds 0.01 --json " + dir.path("b.json"), &out, &err),
            0) << err;
  size_t headers = 0, rows = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    headers += line.rfind("impl ", 0) == 0;
    rows += line.rfind("reference ", 0) == 0 || line.rfind("baseline-two-pass ", 0) == 0;
  }
  EXPECT_EQ(headers, 1u) << out;
  EXPECT_EQ(rows, 4u) << out;
  EXPECT_NE(out.find("shape 2: K=8,V=4,H=4,Hk=2,T=3 (form: Hk=2 Hq=H"), std::string::npos) << out;
  EXPECT_EQ(out.find("WARNING"), std::string::npos) << out;
  const std::string check =
      "import json, sys\n"
      "r = json.load(open(sys.argv[1]))[1:]\n"
      "got = sorted((x['impl'], x['B'], x['K'], x['V'], x['H'], x['T'], x['Hk']) for x in r)\n"
      "want = sorted((i, 2) + s for i in ('reference', 'baseline-two-pass') for s in ((16, 8, 2, 5, 2), (8, 4, 4, 3, 2)))\n"
      "assert got == want, got\n";
  EXPECT_EQ(check_json(dir, check, dir.path("b.json")), 0)
      << read_file(dir.path("b.json"));
}

// --shapes sets the form per shape: one run holds head-major and
// token-major, channel and scalar decay, a varlen call in place; each record
// carries its shape's form, the rest comes from the flags (--Hk 1), and each
// case's implementations agree (no WARNING: the two-pass baseline is checked against the
// reference on every form).
TEST(GdrBenchTest, ShapesSetTheFormPerShape) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference,baseline-two-pass --H 2 --Hk 1 --K 16 --V 16 --T 6 --shapes "
                       "'layout=bhtd;layout=bthd,decay=scalar;seqlens=3/0/5,in_place=1' --threads 1 "
                       "--seconds 0.01 --json " + dir.path("b.json"), &out, &err),
            0) << err;
  EXPECT_EQ(out.find("WARNING"), std::string::npos) << out;
  EXPECT_NE(out.find("  shape 2 (form: Hk=1 Hq=H decay=scalar layout=bthd seqlens=- in_place=0)"),
            std::string::npos) << out;
  const std::string check =
      "import json, sys\n"
      "r = json.load(open(sys.argv[1]))[1:]\n"
      "got = [(x['impl'], x['T'], x['Hk'], x['decay'], x['layout'], x['seqlens'], x['in_place']) for x in r]\n"
      "want = [(i,) + s for s in ((6, 1, 'channel', 'bhtd', [], False), (6, 1, 'scalar', 'bthd', [], False),\n"
      "                           (8, 1, 'channel', 'bhtd', [3, 0, 5], True)) for i in ('reference', 'baseline-two-pass')]\n"
      "assert got == want, got\n";
  EXPECT_EQ(check_json(dir, check, dir.path("b.json")), 0) << read_file(dir.path("b.json"));
}

// --interleave-cases 1 times every case of a thread count in one loop: the
// same records as case by case (each with its own form), each case's
// implementations still agree, every case of a thread count shares one
// peak (the loop's), and each T = 1 case still finds its own shape's T = 0
// (a floor line per implementation and shape), though --T lists it after.
// Any other value is a usage error, before any measuring.
TEST(GdrBenchTest, InterleavedCasesGiveTheSameRecords) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl reference,baseline-two-pass --H 2 --K 16 --V 16 --T 1,0 --threads 1,2 --shapes "
                       "'layout=bhtd;layout=bthd,Hk=1' --interleave-cases 1 --seconds 0.01 --json " +
                       dir.path("b.json"), &out, &err),
            0) << err;
  EXPECT_EQ(out.find("WARNING"), std::string::npos) << out;
  EXPECT_NE(out.find("interleaved with the cases (%peak's)"), std::string::npos) << out;
  size_t floors = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) floors += line.rfind("  floor: ", 0) == 0;
  EXPECT_EQ(floors, 8u) << out;  // 2 implementations x 2 shapes x 2 thread counts
  const std::string check =
      "import json, sys\n"
      "r = json.load(open(sys.argv[1]))[1:]\n"
      "for n in (1, 2):\n"
      "    assert len({x['peak_gflops'] for x in r if x['threads'] == n}) == 1, r\n"
      "got = sorted((x['impl'], x['threads'], x['T'], x['layout'], x['Hk']) for x in r)\n"
      "want = sorted((i, n, t) + s for i in ('reference', 'baseline-two-pass') for n in (1, 2) for t in (0, 1)\n"
      "              for s in (('bhtd', 2), ('bthd', 1)))\n"
      "assert got == want, got\n"
      "assert all(x['reps'] >= 3 and x['median_ns'] > 0 for x in r), r\n";
  EXPECT_EQ(check_json(dir, check, dir.path("b.json")), 0) << read_file(dir.path("b.json"));
  EXPECT_EQ(bench(dir, "--impl reference --H 2 --interleave-cases 2", &out, &err), 2);
  EXPECT_EQ(err, "gdr-bench: --interleave-cases: expected an integer in [0, 1], got '2'\n");
}

// A bad --shapes is one line naming it and the bad part, before any
// measuring (no machine peak printed), and no JSON.
TEST(GdrBenchTest, BadShapesAreOneLine) {
  const TempDir dir("gdr-bench-test");
  const std::pair<const char*, const char*> cases[] = {
      {"K=abc", "gdr-bench: --shapes: shape 'K=abc': K: expected an integer in [1, 1048576], got 'abc'\n"},
      {"K=16;V=0", "gdr-bench: --shapes: shape 'V=0': V: expected an integer in [1, 1048576], got '0'\n"},
      {"K=16,Q=2", "gdr-bench: --shapes: shape 'K=16,Q=2': unknown key 'Q' (keys B, H, K, V, T, Hk, Hq, decay, "
                   "layout, in_place, seqlens)\n"},
      {"K=16;H", "gdr-bench: --shapes: shape 'H': expected KEY=VALUE (keys B, H, K, V, T, Hk, Hq, decay, layout, "
                 "in_place, seqlens), got 'H'\n"},
      {"layout=thbd", "gdr-bench: --shapes: shape 'layout=thbd': layout: expected bhtd or bthd, got 'thbd'\n"},
      {"decay=vector", "gdr-bench: --shapes: shape 'decay=vector': decay: expected scalar or channel, got 'vector'\n"},
      {"in_place=2", "gdr-bench: --shapes: shape 'in_place=2': in_place: expected 0 or 1, got '2'\n"},
      {"seqlens=3/x", "gdr-bench: --shapes: shape 'seqlens=3/x': seqlens: expected lengths in [0, 1048576] "
                      "separated by '/', got '3/x'\n"},
      {"seqlens=3/4,T=7", "gdr-bench: --shapes: shape 'seqlens=3/4,T=7': T: with seqlens T is their sum\n"},
      {"seqlens=3/4,B=2", "gdr-bench: --shapes: shape 'seqlens=3/4,B=2': --seqlens: a variable-length batch has "
                          "B = 1, got --B 2\n"},
      {"K=1,K=2", "gdr-bench: --shapes: shape 'K=1,K=2': K given twice\n"},
      {"H=6,Hk=4", "gdr-bench: --shapes: shape 'H=6,Hk=4': --Hk 4 does not divide --H 6\n"},
      {";", "gdr-bench: --shapes: an empty shape in ';' (shapes are separated by ';')\n"},
      {"K=16;", "gdr-bench: --shapes: an empty shape in 'K=16;' (shapes are separated by ';')\n"},
      {"K=16,,V=16", "gdr-bench: --shapes: shape 'K=16,,V=16': expected KEY=VALUE (keys B, H, K, V, T, Hk, Hq, decay, "
                     "layout, in_place, seqlens), got ''\n"},
      {"seqlens=1//2", "gdr-bench: --shapes: shape 'seqlens=1//2': seqlens: expected lengths in [0, 1048576] "
                       "separated by '/', got '1//2'\n"},
  };
  for (const auto& [shapes, message] : cases) {
    std::string out, err;
    EXPECT_EQ(bench(dir, std::string("--impl reference --shapes '") + shapes + "' --json " + dir.path("b.json"),
                    &out, &err),
              2) << shapes;
    EXPECT_EQ(err, message) << shapes;
    EXPECT_EQ(out.find("machine peak"), std::string::npos) << out;
    EXPECT_FALSE(std::ifstream(dir.path("b.json")).good()) << shapes;
  }
}

#ifdef GDR_HAVE_COMPILER
// recurrent@<schedule> runs the recurrent route with that schedule (the
// tuning database's text, -p<n> optional), so that several compare in one
// run: a row each, and the plan line names each schedule as it ran.
TEST(GdrBenchTest, RecurrentSchedulesRunSideBySide) {
  const TempDir dir("gdr-bench-test");
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl recurrent@w4-vt8-u1-p2,recurrent@w4-vt16-u2 --H 2 --K 16 --V 16 --T 5 "
                       "--threads 1 --seconds 0.01", &out, &err),
            0) << err;
  for (const char* row : {"\nrecurrent@w4-vt8-u1-p2 ", "\nrecurrent@w4-vt16-u2 "})
    EXPECT_NE(out.find(row), std::string::npos) << row << "\n" << out;
  EXPECT_NE(out.find("  plan: recurrent@w4-vt8-u1-p2: recurrent w4-vt8-u1-p2 (given); "
                     "recurrent@w4-vt16-u2: recurrent w4-vt16-u2-p0 (given)\n"),
            std::string::npos) << out;
  EXPECT_EQ(out.find("WARNING"), std::string::npos) << out;
}

// A schedule that does not parse, or on a route that takes none: one line
// naming --impl, exit 2, before any measuring.
TEST(GdrBenchTest, BadSchedulesAreOneLine) {
  const TempDir dir("gdr-bench-test");
  const std::pair<const char*, const char*> cases[] = {
      {"recurrent@w16-vt60-u1", "gdr-bench: --impl recurrent@w16-vt60-u1: recurrent schedule 'w16-vt60-u1' is not "
                                "of the form w<width>-vt<v_tile, a multiple of width>-u<unroll>[-p<prefetch>"
                                "[-t<tokens per sweep, 1 or 2>]], e.g. w16-vt64-u1-p2\n"},
      {"recurrent@c32-w16", "gdr-bench: --impl recurrent@c32-w16: recurrent schedule 'c32-w16' is not of the form "
                            "w<width>-vt<v_tile, a multiple of width>-u<unroll>[-p<prefetch>[-t<tokens per sweep, 1 "
                            "or 2>]], e.g. w16-vt64-u1-p2\n"},
      {"chunked@w16-vt64-u1", "gdr-bench: --impl chunked@w16-vt64-u1: schedule 'w16-vt64-u1' is not of the form "
                              "c<chunk>-w<vector width>, e.g. c64-w16\n"},
      {"auto@w16-vt64-u1", "gdr-bench: --impl auto@w16-vt64-u1: only chunked@<schedule> and "
                           "recurrent@<schedule> take a schedule\n"},
  };
  for (const auto& [impl, message] : cases) {
    std::string out, err;
    EXPECT_EQ(bench(dir, std::string("--impl ") + impl + " --H 2 --T 1", &out, &err), 2) << impl;
    EXPECT_EQ(err, message) << impl;
    EXPECT_EQ(out.find("machine peak"), std::string::npos) << out;
  }
}

// library:FILE:SYMBOL runs a kernel gdr-compile wrote, beside the routes
// and checked against the first implementation (a kernel of another schedule
// computes the same op); a spelling without a symbol is a usage error, a
// library that does not load or a call it refuses one line and exit 1.
TEST(GdrBenchTest, LibraryKernelsRunBesideTheRoutes) {
  const TempDir dir("gdr-bench-test");
  const std::string compile = std::string("timeout 300 ") + GDR_COMPILE_PATH +
                              " --route recurrent --K 16 --V 16 --schedule w4-vt8-u1 --shared 1 --name lib16 --out " +
                              dir.path("lib16") + " > /dev/null";
  ASSERT_EQ(std::system(compile.c_str()), 0);
  const std::string library = "library:" + dir.path("lib16.so") + ":lib16";
  std::string out, err;
  ASSERT_EQ(bench(dir, "--impl recurrent," + library + "+streaming --K 16 --V 16 --H 3 --T 0,1,40 --threads 1,2 "
                       "--seconds 0.01", &out, &err), 0) << err;
  for (const char* T : {"     0", "     1", "    40"})
    EXPECT_NE(out.find(library + "+streaming   1    3" + T), std::string::npos) << T << "\n" << out;
  EXPECT_NE(out.find("; " + library + "+streaming: kernel lib16\n"), std::string::npos) << out;
  EXPECT_NE(out.find("floor: " + library + "+streaming "), std::string::npos) << out;
  EXPECT_EQ(out.find("WARNING"), std::string::npos) << out;

  // A path may hold '+', '@' and ':' (the symbol follows the last ':');
  // the JSON record names it whole.
  const std::string odd_folder = dir.path("g++@x:y");
  ASSERT_EQ(std::system(("mkdir -p '" + odd_folder + "' && cp " + dir.path("lib16.so") + " '" + odd_folder +
                         "/'").c_str()),
            0);
  const std::string odd = "library:" + odd_folder + "/lib16.so:lib16";
  ASSERT_EQ(bench(dir, "--impl '" + odd + "+out-cached' --K 16 --V 16 --H 2 --T 1 --threads 1 --seconds 0.01 --json " +
                       dir.path("odd.json"), &out, &err),
            0) << err;
  EXPECT_EQ(check_json(dir,
                       "import json, sys\n"
                       "r = json.load(open(sys.argv[1]))\n"
                       "assert [x['impl'] for x in r[1:]] == ['" + odd + "+out-cached'], r\n",
                       dir.path("odd.json")),
            0);

  // Usage errors, the whole list checked before any library loads.
  const std::pair<std::string, std::string> usage[] = {
      {"library:" + dir.path("lib16.so"), "--impl library:" + dir.path("lib16.so") + ": expected library:FILE:SYMBOL"},
      {"library::lib16", "--impl library::lib16: expected library:FILE:SYMBOL"},
      {"library:" + dir.path("lib16.so") + ":",
       "--impl library:" + dir.path("lib16.so") + ":: expected library:FILE:SYMBOL"},
      {"library:" + dir.path("missing.so") + ":k,bogus", "--impl: unknown implementation 'bogus'"},
  };
  for (const auto& [impl, message] : usage) {
    EXPECT_EQ(bench(dir, "--impl " + impl + " --K 16 --V 16 --H 2 --T 1", &out, &err), 2) << impl;
    EXPECT_EQ(err, "gdr-bench: " + message + "\n") << impl;
  }
  const std::pair<std::string, std::string> failing[] = {
      {"library:" + dir.path("lib16.so") + ":lib32 --K 16 --V 16",
       "gdr-bench: --impl library:" + dir.path("lib16.so") + ":lib32: " + dir.path("lib16.so") +
           ": no kernel 'lib32'\n"},
      {library + " --K 32 --V 32",
       "gdr-bench: " + library + ": kernel lib16 was built for K=16, V=16 but the tensors have K=32, V=32\n"},
  };
  for (const auto& [args, message] : failing) {
    EXPECT_EQ(bench(dir, "--impl " + args + " --H 2 --T 1 --seconds 0.01", &out, &err), 1) << args;
    EXPECT_EQ(err, message) << args;
  }

  // --json never replaces an input library, and no error exit leaves its
  // temporary behind (a usage error, a library that does not load).
  const std::string lib_bytes = read_file(dir.path("lib16.so"));
  EXPECT_EQ(bench(dir, "--impl " + library + " --K 16 --V 16 --H 2 --T 1 --json " + dir.path("lib16.so"), &out, &err),
            2);
  EXPECT_EQ(err, "gdr-bench: --json " + dir.path("lib16.so") + " is the library of --impl " + dir.path("lib16.so") +
                     " (gdr-bench never overwrites an input)\n");
  EXPECT_EQ(read_file(dir.path("lib16.so")), lib_bytes);
  for (const std::string& args : {std::string("--impl bogus"), "--impl library:" + dir.path("missing.so") + ":k"}) {
    EXPECT_NE(bench(dir, args + " --K 16 --V 16 --H 2 --T 1 --json " + dir.path("b.json"), &out, &err), 0) << args;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    for (const auto& e : std::filesystem::directory_iterator(dir.str()))
      EXPECT_EQ(e.path().filename().string().rfind("b.json", 0), std::string::npos) << args << ": " << e.path();
  }
  EXPECT_EQ(bench(dir, "--impl reference --halide-profile yes", &out, &err), 2);
  EXPECT_EQ(err, "gdr-bench: --halide-profile: expected an integer in [0, 1], got 'yes'\n");
}
#endif

}  // namespace
}  // namespace gdr::test
