// An enum's values and their names, for the runtime's *_name and parse_*
// functions: one table, read both ways.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace gdr {

// The name of `value`, "unknown" if the table has none.
template <class T, size_t N>
const char* name_in(const std::pair<T, const char*> (&table)[N], T value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "unknown";
}

// The value named `name`; false (and *value untouched) if none is.
template <class T, size_t N>
bool parse_in(const std::pair<T, const char*> (&table)[N], const std::string& name, T* value) {
  for (const auto& [v, n] : table)
    if (name == n) {
      *value = v;
      return true;
    }
  return false;
}

}  // namespace gdr
