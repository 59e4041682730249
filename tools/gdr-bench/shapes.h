// gdr-bench's --shapes: a list of shapes run in one go, one table,
// `K=256,V=256,H=16;K=64,V=64,H=32`. Each shape sets some of B, H, K, V, T,
// Hk, Hq and the form (decay, layout, in_place, seqlens=300/17/1); what it
// leaves out comes from the other flags, so that one run can set forms side
// by side (`layout=bhtd;layout=bthd`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../common/form.h"
#include "gdr/status.h"

namespace gdr::bench {

struct Shape {
  int64_t B = 1, K = 128, V = 128;
  std::vector<int64_t> H, T;  // every H x every T
  tools::Form form;           // the flags' form with the shape's keys
  std::string text;           // as given ("" for the flags' own shape)
};

// Parses `text` (shapes separated by ';', each comma-separated KEY=VALUE,
// keys B, H, K, V, T, Hk, Hq, each at most once; T >= 0, the others >= 1,
// all <= 2^20; decay, layout, in_place and seqlens as their flags, lengths
// separated by '/'), each shape starting from `base`, and checks each form
// (check_form; no T with seqlens, whose sum is T). The error is one line naming --shapes
// and the bad part.
Status parse_shapes(const std::string& text, const Shape& base, std::vector<Shape>* shapes);

}  // namespace gdr::bench
