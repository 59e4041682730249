#include "shapes.h"

#include <set>

#include "../common/flags.h"

namespace gdr::bench {

namespace {

const std::set<std::string> kSizeKeys = {"B", "H", "K", "V", "T", "Hk", "Hq"};
const std::set<std::string> kFormKeys = {"decay", "layout", "in_place", "seqlens"};
const char* const kKeyList = "keys B, H, K, V, T, Hk, Hq, decay, layout, in_place, seqlens";
constexpr int64_t kMaxSize = int64_t(1) << 20;

// A form key's value: decay and layout as their flags, in_place 0 or 1,
// seqlens lengths separated by '/' (the shape's items are separated by ',').
Status parse_form_key(const std::string& key, const std::string& value, tools::Form* form) {
  if (key == "decay") return tools::parse_decay(key, value, &form->decay);
  if (key == "layout") return tools::parse_layout(key, value, &form->layout);
  if (key == "in_place") {
    if (value != "0" && value != "1") return Status::error("in_place: expected 0 or 1, got '" + value + "'");
    form->in_place = value == "1";
    return Status::success();
  }
  if (!tools::parse_integer_list(value, '/', 0, kMaxSize, &form->seqlens))  // seqlens
    return Status::error("seqlens: expected lengths in [0, " + std::to_string(kMaxSize) +
                         "] separated by '/', got '" + value + "'");
  if (form->seqlens.empty()) return Status::error("seqlens: expected lengths separated by '/', got '" + value + "'");
  return Status::success();
}

Status parse_shape(const std::string& text, Shape* shape) {
  auto bad = [&](const std::string& why) { return Status::error("--shapes: shape '" + text + "': " + why); };
  std::set<std::string> seen;
  for (const std::string& item : tools::split_list(text, ',')) {
    const size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    if (eq == std::string::npos || key.empty())
      return bad("expected KEY=VALUE (" + std::string(kKeyList) + "), got '" + item + "'");
    if (!kSizeKeys.count(key) && !kFormKeys.count(key))
      return bad("unknown key '" + key + "' (" + kKeyList + ")");
    if (!seen.insert(key).second) return bad(key + " given twice");
    if (kFormKeys.count(key)) {
      if (Status s = parse_form_key(key, item.substr(eq + 1), &shape->form); !s) return bad(s.message());
      continue;
    }
    int64_t value = 0;
    const int64_t min = key == "T" ? 0 : 1;
    if (!tools::parse_integer(item.substr(eq + 1), &value) || value < min || value > kMaxSize)
      return bad(key + ": expected an integer in [" + std::to_string(min) + ", " + std::to_string(kMaxSize) +
                 "], got '" + item.substr(eq + 1) + "'");
    if (key == "B") shape->B = value;
    else if (key == "H") shape->H = {value};
    else if (key == "K") shape->K = value;
    else if (key == "V") shape->V = value;
    else if (key == "T") shape->T = {value};
    else if (key == "Hk") shape->form.key_heads = value;
    else shape->form.query_heads = value;  // Hq
  }
  if (seen.empty()) return bad("empty");
  if (seen.count("T") && !shape->form.seqlens.empty()) return bad("T: with seqlens T is their sum");
  if (!shape->form.seqlens.empty()) shape->T = {shape->form.T(0)};
  if (Status s = tools::check_form(shape->form, shape->H, shape->B); !s) return bad(s.message());
  return Status::success();
}

}  // namespace

Status parse_shapes(const std::string& text, const Shape& base, std::vector<Shape>* shapes) {
  std::vector<Shape> out;
  for (const std::string& part : tools::split_list(text, ';')) {
    if (part.empty()) return Status::error("--shapes: an empty shape in '" + text + "' (shapes are separated by ';')");
    Shape shape = base;
    shape.text = part;
    if (Status s = parse_shape(part, &shape); !s) return s;
    out.push_back(shape);
  }
  if (out.empty()) return Status::error("--shapes: expected shapes such as 'K=256,V=256,H=16;K=64,V=64,H=32'");
  *shapes = std::move(out);
  return Status::success();
}

}  // namespace gdr::bench
