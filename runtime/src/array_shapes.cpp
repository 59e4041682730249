#include "gdr/array_shapes.h"

#include <algorithm>
#include <tuple>

namespace gdr {

std::string shape_string(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

namespace {
std::string num(int64_t v) { return std::to_string(v); }
}  // namespace

Status shape_call(const ArrayShapes& a, const ArgumentName& name, ShapedCall* call) {
  auto failed = [](const std::string& message) { return Status::error(message); };
  const bool token_major = a.layout == Layout::TokenMajor;
  const char* order = token_major ? "T, heads" : "heads, T";
  // Message parts, built only for a message: a valid call builds no string.
  auto in_layout = [&] { return " (" + name("layout") + ")"; };
  auto sizes_from = [&] { return "from " + name("query") + " and " + name("value") + in_layout(); };

  for (const auto& [field, shape] : {std::pair<const char*, const std::optional<Shape>*>{"cu_seqlens", &a.cu_seqlens},
                                     {"initial_state_indices", &a.initial_state_indices},
                                     {"final_state_indices", &a.final_state_indices}})
    if (*shape && (*shape)->size() != 1)
      return failed(name(field) + ": expected rank 1, got shape " + shape_string(**shape));
  if (a.initial_state_indices && !a.initial_state)
    return failed(name("initial_state_indices") + ": needs " + name("initial_state") + ", the pool it indexes");

  // Sizes: B, T, Hq and K from the query, H and V from the value; every
  // other array must agree with them.
  const Shape& qs = a.query;
  if (qs.size() != 4)
    return failed(name("query") + ": expected rank 4 [B, " + order + ", K]" + in_layout() + ", got shape " +
                  shape_string(qs));
  const Shape& vs = a.value;
  if (vs.size() != 4)
    return failed(name("value") + ": expected rank 4 [B, " + order + ", V]" + in_layout() + ", got shape " +
                  shape_string(vs));
  const int64_t B = qs[0], T = qs[token_major ? 1 : 2], Hq = qs[token_major ? 2 : 1], K = qs[3];
  const int64_t H = vs[token_major ? 2 : 1], V = vs[3];
  // Zero sizes, named by the array they come from (validate_sizes would
  // name only the size).
  for (const auto& [field, size, what, s] : {std::tuple<const char*, int64_t, const char*, const Shape*>{
                                                 "query", B, "B", &qs},
                                             {"query", K, "K", &qs},
                                             {"value", H, "H (its heads)", &vs},
                                             {"value", V, "V", &vs}})
    if (size <= 0)
      return failed(name(field) + ": " + what + " must be positive, got shape " + shape_string(*s) + in_layout());
  // A tensor of `heads` heads of rows `width` wide (kPerToken: one value per
  // token, rank 3) in the layout. A width of 0 stays a dimension, so that a
  // zero K or V reaches validate_sizes' message.
  constexpr int64_t kPerToken = -1;
  auto tensor = [&](int64_t heads, int64_t width) {
    Shape s = token_major ? Shape{B, T, heads} : Shape{B, heads, T};
    if (width != kPerToken) s.push_back(width);
    return s;
  };
  auto mismatch = [&](const std::string& field, const Shape& got, const Shape& want, const std::string& what) {
    return failed(name(field) + ": shape " + shape_string(got) + " does not match the expected " +
                  shape_string(want) + " (" + what + sizes_from() + ")");
  };
  if (vs != tensor(H, V)) return mismatch("value", vs, tensor(H, V), "B and T ");
  const Shape& ks = a.key;
  if (ks.size() != 4)
    return failed(name("key") + ": expected rank 4 [B, " + order + ", K]" + in_layout() + ", got shape " +
                  shape_string(ks));
  const int64_t Hk = ks[token_major ? 2 : 1];
  if (ks != tensor(Hk, K)) return mismatch("key", ks, tensor(Hk, K), "");
  if (Hk == 0 || H % Hk != 0)
    return failed(name("key") + ": has " + num(Hk) + " heads, which does not divide value's " + num(H));
  if (Hq == 0 || (H % Hq != 0 && Hq % H != 0))
    return failed(name("query") + ": has " + num(Hq) + " heads; neither it nor value's " + num(H) +
                  " is a multiple of the other");
  const Shape& ds = a.decay;
  if (ds.size() != 4 && ds.size() != 3)
    return failed(name("decay") + ": expected rank 4 (channelwise, [B, " + order + ", K]) or 3 (scalar, [B, " +
                  order + "])" + in_layout() + ", got shape " + shape_string(ds));
  const DecayKind decay = ds.size() == 3 ? DecayKind::Scalar : DecayKind::Channel;
  const Shape decay_shape = tensor(H, decay == DecayKind::Scalar ? kPerToken : K);
  if (ds != decay_shape)
    return mismatch("decay", ds, decay_shape, decay == DecayKind::Scalar ? "scalar decay, " : "channelwise decay, ");
  if (a.beta != tensor(H, kPerToken)) return mismatch("beta", a.beta, tensor(H, kPerToken), "");
  const Shape out = tensor(std::max(Hq, H), V);
  if (a.out && *a.out != out) return mismatch("out", *a.out, out, "");

  // Sequences: B, or the offsets' count less one.
  int64_t N = B;
  if (a.cu_seqlens) {
    const int64_t offsets = (*a.cu_seqlens)[0];
    if (B != 1)
      return failed(name("cu_seqlens") + ": a variable-length batch needs B = 1, but " + name("query") +
                    " has B = " + num(B));
    if (offsets < 1) return failed(name("cu_seqlens") + ": needs at least one offset (0), got none");
    N = offsets - 1;
  }
  auto sequences = [&] {
    return num(N) + (N == 1 ? " sequence" : " sequences") + " (" + (a.cu_seqlens ? name("cu_seqlens") : "B") + ")";
  };
  for (const auto& [field, shape] : {std::pair<const char*, const std::optional<Shape>*>{"initial_state_indices",
                                                                                       &a.initial_state_indices},
                                     {"final_state_indices", &a.final_state_indices}})
    if (*shape && (**shape)[0] != N)
      return failed(name(field) + ": has " + num((**shape)[0]) + " entries, but there are " + sequences());

  // The state pools: [rows, H, K, V], rows = N unless indices say where.
  auto pool_shape_error = [&](const std::string& field, const Shape& s, bool indexed) -> std::string {
    if (s.size() == 4 && s[1] == H && s[2] == K && s[3] == V && (indexed || s[0] == N)) return "";
    return name(field) + ": shape " + shape_string(s) + " does not match the expected " +
           (indexed ? "(S, " + num(H) + ", " + num(K) + ", " + num(V) + ") for a pool of S rows"
                    : shape_string({N, H, K, V}) + " (" + sequences() + ", H and V from " + name("value") +
                          ", K from " + name("query") + ")");
  };
  const bool initial_indexed = a.initial_state_indices.has_value();
  const bool final_indexed = a.final_state_indices.has_value();
  int64_t initial_rows = N;
  if (a.initial_state) {
    if (std::string e = pool_shape_error("initial_state", *a.initial_state, initial_indexed); !e.empty())
      return failed(e);
    initial_rows = (*a.initial_state)[0];
  }
  // The final pool: the initial one in place; with final_state_indices the
  // given pool, else a pool of zeros as large as the initial one; else N rows.
  Shape final_pool = {N, H, K, V};
  if (a.final_is_initial) {
    if (!a.initial_state) return failed(name("final_state") + ": is initial_state, which is absent");
    // One pool read and written: N rows unless both index arrays say where.
    if (final_indexed != initial_indexed && initial_rows != N)
      return failed(pool_shape_error("initial_state", *a.initial_state, false) + " (" + name("in_place") +
                    " with " + name(final_indexed ? "final_state_indices" : "initial_state_indices") + " alone)");
    final_pool = *a.initial_state;
  } else if (a.final_state) {
    if (std::string e = pool_shape_error("final_state", *a.final_state, final_indexed); !e.empty())
      return failed(e + (final_indexed ? " (the pool " + name("final_state_indices") + " writes into)" : ""));
    final_pool = *a.final_state;
  } else if (final_indexed) {
    final_pool = {initial_rows, H, K, V};
  }

  Tensors& t = call->tensors;
  t = Tensors{};
  t.B = B, t.H = H, t.T = T, t.K = K, t.V = V;
  t.key_heads = Hk;
  t.query_heads = Hq;
  t.layout = a.layout;
  t.decay_kind = decay;
  t.in_place = a.in_place;
  if (a.cu_seqlens) t.cu_seqlens.size = (*a.cu_seqlens)[0];
  if (initial_indexed) {
    t.initial_state_indices.size = N;
    t.initial_state_slots = initial_rows;
  }
  if (final_indexed) {
    t.final_state_indices.size = N;
    t.final_state_slots = final_pool[0];
  }
  call->out = out;
  call->final_state = final_pool;
  // validate_sizes() counts an indexed pool's rows only once its indices
  // have data, which a shaped call has not yet: it checks a copy whose
  // indices point somewhere (it reads none of them).
  static const int64_t somewhere = 0;
  Tensors indexed = t;
  if (a.cu_seqlens) indexed.cu_seqlens.data = &somewhere;
  if (initial_indexed) indexed.initial_state_indices.data = &somewhere;
  if (final_indexed) indexed.final_state_indices.data = &somewhere;
  return validate_sizes(indexed);
}

}  // namespace gdr
