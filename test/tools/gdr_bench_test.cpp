// gdr-bench's flags: a duration must be a finite positive number (--seconds
// inf used to run forever), said in one line before any measurement.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace
}  // namespace gdr::test
