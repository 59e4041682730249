// The call's form beyond B, H, T, K, V for gdr-bench and gdr-tune: the
// flags --Hk, --Hq, --decay, --layout, --seqlens and --in-place, parsed and
// checked once, the problems built from them (gdr::test::make_problem's
// ProblemForm) and how reports print them.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "flags.h"
#include "gdr/reference/reference.h"
#include "gdr/status.h"
#include "gdr/tensors.h"

namespace gdr::tools {

struct Form {
  int64_t key_heads = 0, query_heads = 0;  // --Hk, --Hq; 0: H
  DecayKind decay = DecayKind::Channel;    // --decay scalar|channel
  Layout layout = Layout::HeadMajor;       // --layout bhtd|bthd
  std::vector<int64_t> seqlens;            // --seqlens (varlen, B = 1); empty: none
  bool in_place = false;                   // --in-place 1: final state = the initial pool

  int64_t Hk(int64_t H) const { return key_heads > 0 ? key_heads : H; }
  int64_t Hq(int64_t H) const { return query_heads > 0 ? query_heads : H; }
  // Query heads per state head: the kernel's readouts (1 unless Hq > H).
  int64_t readouts(int64_t H) const { return Hq(H) > H ? Hq(H) / H : 1; }
  // Tokens of a case of batch B and length T (T is the seqlens' sum with them).
  int64_t T(int64_t T_flag) const;
};

// The flags Form reads, for Flags::parse's known set.
extern const std::set<std::string> kFormFlags;

// Reads a decay kind (scalar|channel) or a layout (bhtd|bthd); an error
// names `name` (the flag, or the key of a gdr-bench shape).
Status parse_decay(const std::string& name, const std::string& text, DecayKind* decay);
Status parse_layout(const std::string& name, const std::string& text, Layout* layout);

// Reads the form flags; an error names the flag.
Status parse_form(const Flags& flags, Form* form);

// Checks the form against every H of the run (--Hk must divide each, --Hq
// divide or be a multiple of each) and B (varlen needs B = 1); an error
// names the flags.
Status check_form(const Form& form, const std::vector<int64_t>& H, int64_t B);

// make_problem's form for state heads H: varlen per --seqlens (each
// sequence its own state), in place without slot indices (sequence i reads
// and writes pool row i).
test::ProblemForm problem_form(const Form& form, int64_t H);

// One line for people: "Hk=H Hq=H decay=channel layout=bhtd seqlens=- in_place=0"
// (Hk=16 when given, seqlens=300,17,1 when varlen).
std::string form_text(const Form& form);

// The JSON fields of a record of state heads H, without braces:
// "\"Hk\": 16, \"Hq\": 32, \"decay\": \"scalar\", \"layout\": \"bthd\",
// \"seqlens\": [300, 17], \"in_place\": false".
std::string form_json(const Form& form, int64_t H);

}  // namespace gdr::tools
