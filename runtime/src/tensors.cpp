#include "gdr/tensors.h"

#include <cstdint>
#include <string>

namespace gdr {
namespace {

bool mul(int64_t a, int64_t b, int64_t* r) { return !__builtin_mul_overflow(a, b, r); }

// Element count of a tensor with the given dims, or -1 on overflow of the
// byte count (elements * 4 must fit in int64).
int64_t elements(std::initializer_list<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (!mul(n, d, &n)) return -1;
  int64_t bytes;
  return mul(n, static_cast<int64_t>(sizeof(float)), &bytes) ? n : -1;
}

struct Span {
  const char* name;
  const void* data;
  int64_t elements;
  uintptr_t begin() const { return reinterpret_cast<uintptr_t>(data); }
  uintptr_t end() const { return begin() + static_cast<uintptr_t>(elements) * sizeof(float); }
  bool empty() const { return elements == 0; }
};

bool overlap(const Span& a, const Span& b) {
  if (a.empty() || b.empty()) return false;
  return a.begin() < b.end() && b.begin() < a.end();
}

std::string dims(const Tensors& t) {
  return "B=" + std::to_string(t.B) + ", H=" + std::to_string(t.H) + ", T=" + std::to_string(t.T) +
         ", K=" + std::to_string(t.K) + ", V=" + std::to_string(t.V);
}

}  // namespace

TensorSizes tensor_sizes(const Tensors& t) {
  return {t.B * t.H * t.T * t.K, t.B * t.H * t.T * t.V, t.B * t.H * t.T, t.B * t.H * t.K * t.V};
}

Status validate_sizes(const Tensors& t) {
  struct Dim {
    const char* name;
    int64_t value;
    int64_t min;
  };
  for (const Dim& d : {Dim{"B", t.B, 1}, Dim{"H", t.H, 1}, Dim{"T", t.T, 0}, Dim{"K", t.K, 1},
                       Dim{"V", t.V, 1}}) {
    if (d.value < d.min)
      return Status::error(std::string(d.name) + " must be " + (d.min ? "positive" : "non-negative") +
                           ", got " + std::to_string(d.value) + " (" + dims(t) + ")");
  }
  if (elements({t.B, t.H, t.T, t.K}) < 0 || elements({t.B, t.H, t.T, t.V}) < 0 ||
      elements({t.B, t.H, t.K, t.V}) < 0)
    return Status::error("sizes overflow: the tensors' byte counts do not fit in 64 bits (" +
                         dims(t) + ")");
  return Status::ok();
}

Status validate(const Tensors& t) {
  if (Status s = validate_sizes(t); !s) return s;

  const TensorSizes n = tensor_sizes(t);
  const Span inputs[] = {{"query", t.query, n.qk},
                         {"key", t.key, n.qk},
                         {"value", t.value, n.value},
                         {"decay", t.decay, n.qk},
                         {"beta", t.beta, n.beta},
                         {"initial_state", t.initial_state, n.state}};
  const Span out{"out", t.out, n.value};
  const Span final_state{"final_state", t.final_state, n.state};

  for (const Span* s : {&inputs[0], &inputs[1], &inputs[2], &inputs[3], &inputs[4], &inputs[5],
                        &out, &final_state}) {
    if (s->data == nullptr && !s->empty())
      return Status::error(std::string(s->name) + " is a null pointer");
    if (s->begin() % alignof(float) != 0)
      return Status::error(std::string(s->name) + " is not aligned to 4 bytes (float32)");
  }
  for (const Span* written : {&final_state, &out}) {
    for (const Span& in : inputs)
      if (overlap(*written, in))
        return Status::error(std::string(written->name) + " overlaps " + in.name +
                             ": outputs must not share memory with any input");
  }
  if (overlap(out, final_state)) return Status::error("out overlaps final_state");
  return Status::ok();
}

}  // namespace gdr
