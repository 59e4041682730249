// A map whose value for a key is computed once per process: the first caller
// computes it, callers that miss on the same key meanwhile wait for that one
// computation, later callers get the stored value.
#pragma once

#include <exception>
#include <future>
#include <map>
#include <mutex>
#include <utility>

namespace gdr::compiler {

template <typename Key, typename Value>
class OnceCache {
 public:
  // The value for `key`, computing it with `compute()` on the first call.
  // The reference stays valid for the life of the cache (entries are never
  // removed). `*computed`, if given, says whether this call computed it.
  template <typename Compute>
  const Value& get(const Key& key, Compute&& compute, bool* computed = nullptr) {
    std::promise<Value> promise;
    std::shared_future<Value> future;
    bool compute_here = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto [it, inserted] = entries_.try_emplace(key);
      if (inserted) it->second = promise.get_future().share();
      future = it->second;
      compute_here = inserted;
    }
    if (computed) *computed = compute_here;
    // The map's copy of the future keeps the shared value alive, so the
    // reference get() returns outlives this local copy. Wait unlocked.
    if (!compute_here) return future.get();
    try {
      promise.set_value(std::forward<Compute>(compute)());
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
    return future.get();
  }

 private:
  std::mutex mutex_;
  std::map<Key, std::shared_future<Value>> entries_;
};

}  // namespace gdr::compiler
