// A result with a message: every user-reachable failure returns one.
#pragma once

#include <string>
#include <utility>

namespace gdr {

// Test one as a bool (`if (!s)`) or with s.ok(), as absl's and RocksDB's
// statuses read.
class Status {
 public:
  static Status success() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string& message() const { return message_; }

 private:
  Status() = default;
  explicit Status(std::string message) : failed_(true), message_(std::move(message)) {}
  bool failed_ = false;
  std::string message_;
};

}  // namespace gdr
