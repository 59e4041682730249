// support::StagedOutputs: all outputs or none, nothing left behind.
#include "gdr/support/staged_outputs.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "temp_dir.h"
#include "wait_for_child.h"

namespace gdr::support {
namespace {

namespace fs = std::filesystem;

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether the test was started with SIGTERM ignored (the signal tests skip).
bool sigterm_ignored() {
  struct sigaction action;
  return ::sigaction(SIGTERM, nullptr, &action) != 0 || action.sa_handler == SIG_IGN;
}

// In a forked child: SIGTERM not blocked, whatever the test was started with.
void let_sigterm_in() {
  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::pthread_sigmask(SIG_UNBLOCK, &term, nullptr);
}

size_t files_in(const std::string& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST(StagedOutputs, CommitReplacesEveryOutputKeepingItsMode) {
  const gdr::test::TempDir dir("gdr-staged-test");
  std::ofstream(dir.path("a")) << "old a";
  ASSERT_EQ(::chmod(dir.path("a").c_str(), 0640), 0);
  StagedOutputs outputs;
  ASSERT_TRUE(outputs.add("--a", dir.path("a")));
  ASSERT_TRUE(outputs.add("--b", dir.path("b")));
  ASSERT_TRUE(outputs.write(0, {"new ", "a"}));
  ASSERT_TRUE(outputs.write(1, {"b"}));
  EXPECT_EQ(text_of(dir.path("a")), "old a");  // nothing is visible before commit
  EXPECT_FALSE(fs::exists(dir.path("b")));
  ASSERT_TRUE(outputs.commit());
  EXPECT_EQ(text_of(dir.path("a")), "new a");
  EXPECT_EQ(text_of(dir.path("b")), "b");
  struct stat info;
  ASSERT_EQ(::stat(dir.path("a").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
  EXPECT_EQ(files_in(dir.str()), 2u);
}

TEST(StagedOutputs, AnUncommittedSetLeavesNothing) {
  const gdr::test::TempDir dir("gdr-staged-test");
  std::ofstream(dir.path("a")) << "old a";
  {
    StagedOutputs outputs;
    ASSERT_TRUE(outputs.add("--a", dir.path("a")));
    ASSERT_TRUE(outputs.add("--b", dir.path("b")));
    ASSERT_TRUE(outputs.write(0, {"new a"}));
  }
  EXPECT_EQ(text_of(dir.path("a")), "old a");
  EXPECT_EQ(files_in(dir.str()), 1u);
}

// A signal that ends the process (Ctrl-C, kill) mid-run leaves no
// temporary either, and still ends it by that signal; a committed set's
// outputs stay (found by an audit: a killed gdr-run left out.npy.tmp.<hex>).
TEST(StagedOutputs, ASignalThatEndsTheProcessLeavesNoTemporary) {
  for (int sig : {SIGTERM, SIGINT}) {
    const gdr::test::TempDir dir("gdr-staged-test");
    std::ofstream(dir.path("a")) << "old a";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      StagedOutputs done;
      if (!done.add("--done", dir.path("done")) || !done.write(0, {"done"}) || !done.commit()) ::_exit(3);
      StagedOutputs outputs;
      if (!outputs.add("--a", dir.path("a")) || !outputs.add("--b", dir.path("b")) ||
          !outputs.write(0, {"new a"}))
        ::_exit(2);
      ::raise(sig);
      ::_exit(1);  // not reached: the signal ends the process
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), sig);
    EXPECT_EQ(text_of(dir.path("a")), "old a");
    EXPECT_EQ(text_of(dir.path("done")), "done");
    EXPECT_EQ(files_in(dir.str()), 2u) << "signal " << sig;
  }
}

// If the second rename fails (its path became a folder after the checks),
// the first output is put back as it was.
TEST(StagedOutputs, AFailedRenamePutsBackTheOutputsBeforeIt) {
  const gdr::test::TempDir dir("gdr-staged-test");
  std::ofstream(dir.path("a")) << "old a";
  StagedOutputs outputs;
  ASSERT_TRUE(outputs.add("--a", dir.path("a")));
  ASSERT_TRUE(outputs.add("--new", dir.path("new")));
  ASSERT_TRUE(outputs.add("--b", dir.path("b")));
  fs::create_directory(dir.path("b"));
  fs::create_directory(dir.path("b/inside"));  // a rename over a non-empty folder fails
  const Status s = outputs.commit();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("--b: cannot rename"), std::string::npos) << s.message();
  EXPECT_EQ(text_of(dir.path("a")), "old a");
  EXPECT_FALSE(fs::exists(dir.path("new")));
  EXPECT_EQ(files_in(dir.str()), 2u);  // a and the folder b
}

// An existing output that cannot get a hard link (its file system's limit
// on links reached: EMLINK) is copied instead, and still put back when a
// later rename fails (found by a review: it was taken for "no file existed"
// and deleted).
TEST(StagedOutputs, AnOutputWithoutAHardLinkIsStillPutBack) {
  const gdr::test::TempDir dir("gdr-staged-test");
  std::ofstream(dir.path("a")) << "old a";
  struct statfs fs_info;
  constexpr long kExt234 = 0xEF53;  // ext2, ext3 and ext4: at most 65000 links
  if (::statfs(dir.str().c_str(), &fs_info) != 0 || fs_info.f_type != kExt234)
    GTEST_SKIP() << dir.str() << " is not on ext4, whose link limit the test reaches";
  fs::create_directory(dir.path("links"));
  int links = 1;
  for (; links < 70000; ++links)
    if (::link(dir.path("a").c_str(), dir.path("links/" + std::to_string(links)).c_str()) != 0) break;
  ASSERT_EQ(errno, EMLINK) << "after " << links << " links";
  StagedOutputs outputs;
  ASSERT_TRUE(outputs.add("--a", dir.path("a")));
  ASSERT_TRUE(outputs.add("--b", dir.path("b")));
  ASSERT_TRUE(outputs.write(0, {"new a"}));
  fs::create_directory(dir.path("b"));
  fs::create_directory(dir.path("b/inside"));  // the second rename fails
  const Status s = outputs.commit();
  ASSERT_FALSE(s);
  EXPECT_NE(s.message().find("--b: cannot rename"), std::string::npos) << s.message();
  EXPECT_EQ(text_of(dir.path("a")), "old a");
  EXPECT_EQ(files_in(dir.str()), 3u);  // a, links, the folder b
}

// A signal sent to the process while commit() renames is taken by a thread
// that does not hold it back; the process still ends only after the renames,
// never between two (found by a review: outputs were left half old, half
// new). Each round writes its number into both outputs, so they must agree.
TEST(StagedOutputs, ASignalDuringACommitEndsTheProcessAfterIt) {
  if (sigterm_ignored()) GTEST_SKIP() << "SIGTERM is ignored in this process";
  for (int round = 0; round < 20; ++round) {
    const gdr::test::TempDir dir("gdr-staged-test");
    std::ofstream(dir.path("a")) << "0";
    std::ofstream(dir.path("b")) << "0";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      let_sigterm_in();
      std::thread([] {
        for (;;) ::usleep(100);  // takes the signal the committer holds back
      }).detach();
      for (int n = 1;; ++n) {
        StagedOutputs outputs;
        const std::string text = std::to_string(n);
        Status s = outputs.add("--a", dir.path("a"));
        if (s) s = outputs.add("--b", dir.path("b"));
        if (s) s = outputs.write(0, {text});
        if (s) s = outputs.write(1, {text});
        if (s) s = outputs.commit();
        if (!s) {
          std::fprintf(stderr, "%s\n", s.message().c_str());
          ::_exit(2);
        }
      }
    }
    ::usleep(20000 + 1000 * round);
    ::kill(child, SIGTERM);
    const int status = gdr::test::wait_for_child(child, 10);
    ASSERT_NE(status, -1) << "round " << round << ": SIGTERM did not end the process in 10 s";
    ASSERT_TRUE(WIFSIGNALED(status)) << "exit " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), SIGTERM);
    EXPECT_EQ(text_of(dir.path("a")), text_of(dir.path("b"))) << "round " << round;
    std::string names;
    for (const auto& e : fs::directory_iterator(dir.str())) names += e.path().filename().string() + " ";
    EXPECT_EQ(files_in(dir.str()), 2u) << "round " << round << ": " << names;
  }
}

// A child of fork() owns none of its parent's temporaries: ended by a
// signal, it deletes none of them (found by a review: the child's handler
// deleted the parent's live temporaries).
TEST(StagedOutputs, AForkedChildEndedByASignalLeavesTheParentsTemporaries) {
  const gdr::test::TempDir dir("gdr-staged-test");
  StagedOutputs outputs;
  ASSERT_TRUE(outputs.add("--a", dir.path("a")));
  if (sigterm_ignored()) GTEST_SKIP() << "SIGTERM is ignored in this process";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    let_sigterm_in();
    ::raise(SIGTERM);
    ::_exit(1);
  }
  const int status = gdr::test::wait_for_child(child, 10);
  ASSERT_NE(status, -1);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(fs::exists(outputs.temporary(0)));
  ASSERT_TRUE(outputs.write(0, {"a"}));
  ASSERT_TRUE(outputs.commit());
  EXPECT_EQ(text_of(dir.path("a")), "a");
}

TEST(StagedOutputs, RefusesPathsThatCannotBecomeTheFile) {
  const gdr::test::TempDir dir("gdr-staged-test");
  fs::create_directory(dir.path("folder"));
  ASSERT_EQ(::mkfifo(dir.path("fifo").c_str(), 0600), 0);
  const std::pair<std::string, std::string> cases[] = {
      {"", "--x: the path is empty"},
      {dir.path("folder/"), "names a folder (ends in '/')"},
      {dir.path("folder"), "is a folder, not a file gdr may replace"},
      {dir.path("fifo"), "is a FIFO, not a file gdr may replace"},
      {dir.path("missing/x"), "its folder " + dir.path("missing") + " does not exist"},
  };
  for (const auto& [path, message] : cases) {
    StagedOutputs outputs;
    const Status s = outputs.add("--x", path);
    ASSERT_FALSE(s) << path;
    EXPECT_NE(s.message().find(message), std::string::npos) << s.message();
  }
  StagedOutputs outputs;
  ASSERT_TRUE(outputs.add("--x", dir.path("x")));
  const Status twice = outputs.add("--y", dir.path("folder/../x"));
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.message().find("--y: is the same file as --x"), std::string::npos) << twice.message();
}

// The longest name add() accepts (its temporary's fits the folder's limit)
// commits: the backup commit() keeps of an existing output fits too (it
// was `<name>.old.tmp.<16 hex>`, 4 bytes longer, and the commit failed
// after all the work).
TEST(StagedOutputs, TheLongestNameAddAcceptsCommits) {
  const gdr::test::TempDir dir("gdr-staged-test");
  const long name_max = ::pathconf(dir.str().c_str(), _PC_NAME_MAX);
  ASSERT_GT(name_max, 40);
  std::string name(static_cast<size_t>(name_max) - std::string(".tmp.0123456789abcdef").size(), 'o');
  std::ofstream(dir.path(name)) << "old";
  StagedOutputs outputs;
  ASSERT_TRUE(outputs.add("--long", dir.path(name)));
  ASSERT_FALSE(outputs.add("--longer", dir.path(name + "x")));
  ASSERT_TRUE(outputs.add("--b", dir.path("b")));
  ASSERT_TRUE(outputs.write(0, {"new"}));
  ASSERT_TRUE(outputs.write(1, {"b"}));
  const Status s = outputs.commit();
  ASSERT_TRUE(s) << s.message();
  EXPECT_EQ(text_of(dir.path(name)), "new");
  EXPECT_EQ(files_in(dir.str()), 2u);
}

}  // namespace
}  // namespace gdr::support
