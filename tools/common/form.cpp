#include "form.h"

#include <numeric>

namespace gdr::tools {

const std::set<std::string> kFormFlags = {"--Hk", "--Hq", "--decay", "--layout", "--seqlens", "--in-place"};

int64_t Form::T(int64_t T_flag) const {
  return seqlens.empty() ? T_flag : std::accumulate(seqlens.begin(), seqlens.end(), int64_t{0});
}

Status parse_decay(const std::string& name, const std::string& text, DecayKind* decay) {
  if (text == "scalar") *decay = DecayKind::Scalar;
  else if (text == "channel") *decay = DecayKind::Channel;
  else return Status::error(name + ": expected scalar or channel, got '" + text + "'");
  return Status::success();
}

Status parse_layout(const std::string& name, const std::string& text, Layout* layout) {
  if (!gdr::parse_layout(text, layout)) return Status::error(name + ": expected bhtd or bthd, got '" + text + "'");
  return Status::success();
}

Status parse_form(const Flags& flags, Form* form) {
  constexpr int64_t kMaxSize = int64_t(1) << 20;
  int64_t in_place = 0;
  for (Status s : {flags.integer("--Hk", 1, kMaxSize, &form->key_heads),
                   flags.integer("--Hq", 1, kMaxSize, &form->query_heads),
                   flags.integers("--seqlens", 0, kMaxSize, &form->seqlens),
                   flags.integer("--in-place", 0, 1, &in_place)})
    if (!s) return s;
  form->in_place = in_place == 1;
  if (flags.has("--decay"))
    if (Status s = parse_decay("--decay", flags.get("--decay"), &form->decay); !s) return s;
  if (flags.has("--layout"))
    if (Status s = parse_layout("--layout", flags.get("--layout"), &form->layout); !s) return s;
  if (flags.has("--seqlens") && flags.has("--T"))
    return Status::error("--seqlens: T is their sum; give --seqlens or --T, not both");
  return Status::success();
}

Status check_form(const Form& form, const std::vector<int64_t>& Hs, int64_t B) {
  for (int64_t H : Hs) {
    if (H % form.Hk(H) != 0)
      return Status::error("--Hk " + std::to_string(form.key_heads) + " does not divide --H " + std::to_string(H));
    const int64_t Hq = form.Hq(H);
    if (H % Hq != 0 && Hq % H != 0)
      return Status::error("--Hq " + std::to_string(Hq) + ": neither it nor --H " + std::to_string(H) +
                           " is a multiple of the other");
  }
  if (!form.seqlens.empty() && B != 1)
    return Status::error("--seqlens: a variable-length batch has B = 1, got --B " + std::to_string(B));
  return Status::success();
}

test::ProblemForm problem_form(const Form& form, int64_t H) {
  test::ProblemForm f;
  f.key_heads = form.key_heads > 0 ? form.key_heads : 0;
  f.query_heads = form.query_heads > 0 ? form.query_heads : 0;
  if (f.key_heads == H) f.key_heads = 0;
  if (f.query_heads == H) f.query_heads = 0;
  f.layout = form.layout;
  f.decay = form.decay;
  f.seqlens = form.seqlens;
  f.in_place = form.in_place;
  return f;
}

namespace {
std::string seqlens_list(const Form& form, const char* separator) {
  std::string s;
  for (size_t i = 0; i < form.seqlens.size(); ++i) s += (i ? separator : "") + std::to_string(form.seqlens[i]);
  return s;
}
}  // namespace

std::string form_text(const Form& form) {
  return "Hk=" + (form.key_heads ? std::to_string(form.key_heads) : std::string("H")) +
         " Hq=" + (form.query_heads ? std::to_string(form.query_heads) : std::string("H")) +
         " decay=" + decay_kind_name(form.decay) + " layout=" + layout_name(form.layout) +
         " seqlens=" + (form.seqlens.empty() ? std::string("-") : seqlens_list(form, ",")) +
         " in_place=" + (form.in_place ? "1" : "0");
}

std::string form_json(const Form& form, int64_t H) {
  return "\"Hk\": " + std::to_string(form.Hk(H)) + ", \"Hq\": " + std::to_string(form.Hq(H)) +
         ", \"decay\": \"" + decay_kind_name(form.decay) + "\", \"layout\": \"" + layout_name(form.layout) +
         "\", \"seqlens\": [" + seqlens_list(form, ", ") + "], \"in_place\": " +
         (form.in_place ? "true" : "false");
}

}  // namespace gdr::tools
