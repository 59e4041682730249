// gdr._gdr_torch: torch.ops.gdr's CPU and Meta kernels in C++, built when
// the build finds torch (Debian's python3-torch / libtorch-dev): the
// dispatcher then calls them directly, with no Python in between, which is
// what keeps a decode call's overhead over the C++ API small (python/README
// and docs/python.md give the measurement). The schemas (torch_op_schema.h)
// are ExecuTorch's llama::gated_delta_rule's with keyword arguments for the
// layout and varlen batches, and a pool op for state slots updated in
// place; the Python fallback in gdr/torch_ops.py registers the same ops for
// a torch this module was not built for.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <pybind11/pybind11.h>
#include <torch/library.h>
#include <torch/version.h>

#include <optional>
#include <string>
#include <tuple>

#include "gdr/array_shapes.h"
#include "run_entry.h"
#include "torch_op_schema.h"

namespace {

gdr::python::RunEntry run_entry = nullptr;      // set when gdr._gdr_torch is imported
gdr::python::CheckEntry check_entry = nullptr;  // likewise

// torch's Python name of t's dtype, as the Python kernels' messages give it.
std::string dtype_name(const at::Tensor& t) {
  switch (t.scalar_type()) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kInt: return "int32";
    case at::kLong: return "int64";
    case at::kShort: return "int16";
    case at::kChar: return "int8";
    case at::kByte: return "uint8";
    case at::kBool: return "bool";
    case at::kComplexFloat: return "complex64";
    case at::kComplexDouble: return "complex128";
    default: return std::string(c10::toString(t.scalar_type()));
  }
}

// On the CPU. A meta kernel runs when any argument is a meta tensor: one
// given a mix of meta and CPU tensors would return outputs of no values and
// write nothing, so there every tensor must be on query's device.
void check_device(const char* name, const at::Tensor& t, const at::Tensor& query, bool meta) {
  if (meta) {
    TORCH_CHECK_VALUE(t.device() == query.device(), name, ": expected a tensor on query's device (",
                      query.device().str(), "), got ", t.device().str());
  } else {
    TORCH_CHECK_VALUE(t.device().is_cpu(), name, ": expected a CPU tensor, got device '", t.device().str(), "'");
  }
}

// The same checks and messages as the Python fallback's _operand(). The
// ops have no backward: a tensor that requires grad (with grad mode on) is
// refused, not run with the outputs silently cut from the graph.
void check_operand(const char* name, const at::Tensor& t, const at::Tensor& query, bool meta) {
  TORCH_CHECK(!(at::GradMode::is_enabled() && t.requires_grad()), name,
              ": requires grad, but torch.ops.gdr has no backward (forward only): call it under "
              "torch.no_grad() or torch.inference_mode(), or on tensors that do not require grad");
  TORCH_CHECK_VALUE(t.scalar_type() == at::kFloat, name, ": expected float32, got ", dtype_name(t));
  check_device(name, t, query, meta);
  TORCH_CHECK_VALUE(t.is_contiguous(), name, ": expected a contiguous tensor (.contiguous())");
}

// Offsets and slot indices: int32 or int64, rank 1, contiguous, on the CPU;
// their data (null for a meta tensor) and length.
gdr::Indices index_operand(const char* name, const at::Tensor& t, const at::Tensor& query, bool meta) {
  gdr::Indices indices;
  if (t.scalar_type() == at::kInt) indices.type = gdr::Indices::Type::Int32;
  else if (t.scalar_type() == at::kLong) indices.type = gdr::Indices::Type::Int64;
  else TORCH_CHECK_VALUE(false, name, ": expected int32 or int64, got ", dtype_name(t));
  check_device(name, t, query, meta);
  TORCH_CHECK_VALUE(t.dim() == 1, name, ": expected rank 1, got shape ",
                    gdr::shape_string(gdr::Shape(t.sizes().begin(), t.sizes().end())));
  TORCH_CHECK_VALUE(t.is_contiguous(), name, ": expected a contiguous tensor (.contiguous())");
  if (!meta) indices.data = t.data_ptr();
  indices.size = t.size(0);
  return indices;
}

gdr::Layout parse_layout(const std::string& text) {
  gdr::Layout layout;
  TORCH_CHECK_VALUE(gdr::parse_layout(text, &layout), "layout: expected 'bhtd' or 'bthd', got '", text, "'");
  return layout;
}

gdr::Shape shape_of(const at::Tensor& t) { return gdr::Shape(t.sizes().begin(), t.sizes().end()); }

// One call's tensors: the inputs, then the schema's keyword arguments. A
// pool call (gated_delta_rule_pool) reads and writes initial_state, the
// pool, in place at the slot indices.
struct Call {
  const at::Tensor &query, &key, &value, &decay, &beta, &initial_state;
  const std::string& layout;
  const c10::optional<at::Tensor>& cu_seqlens;
  const at::Tensor* initial_state_indices = nullptr;
  const at::Tensor* final_state_indices = nullptr;
  bool pool() const { return initial_state_indices != nullptr; }
};

// The call's form from the shapes, as gdr::shape_call reads it, with the
// index data; `out`/`final_state` are checked when given.
gdr::ShapedCall shaped(const Call& in, const at::Tensor* out, const at::Tensor* final_state, bool meta) {
  const char* state_name = in.pool() ? "state_pool" : "initial_state";
  const std::pair<const char*, const at::Tensor*> operands[] = {
      {"query", &in.query}, {"key", &in.key},   {"value", &in.value},          {"decay", &in.decay},
      {"beta", &in.beta},   {state_name, &in.initial_state}, {"out", out}, {"final_state_out", final_state}};
  for (const auto& [name, t] : operands)
    if (t) check_operand(name, *t, in.query, meta);
  gdr::ArrayShapes shapes;
  shapes.query = shape_of(in.query), shapes.key = shape_of(in.key), shapes.value = shape_of(in.value);
  shapes.decay = shape_of(in.decay), shapes.beta = shape_of(in.beta);
  shapes.initial_state = shape_of(in.initial_state);
  shapes.layout = parse_layout(in.layout);
  gdr::Indices cu_seqlens, initial_indices, final_indices;
  const std::tuple<const char*, const at::Tensor*, gdr::Indices*, std::optional<gdr::Shape>*> index_operands[] = {
      {"cu_seqlens", in.cu_seqlens ? &*in.cu_seqlens : nullptr, &cu_seqlens, &shapes.cu_seqlens},
      {"initial_state_indices", in.initial_state_indices, &initial_indices, &shapes.initial_state_indices},
      {"final_state_indices", in.final_state_indices, &final_indices, &shapes.final_state_indices}};
  for (const auto& [name, t, indices, shape] : index_operands)
    if (t) {
      *indices = index_operand(name, *t, in.query, meta);
      *shape = gdr::Shape{indices->size};
    }
  if (out) shapes.out = shape_of(*out);
  if (final_state) shapes.final_state = shape_of(*final_state);
  gdr::ShapedCall call;
  const gdr::Status s = gdr::python::shape_torch_op_call(shapes, &call);
  TORCH_CHECK_VALUE(s.ok(), s.message());
  // Fake tensors: the route the ops run (auto) must take the call, so that
  // a traced call is one that runs. (A CPU call learns it from its run,
  // which checks the same: no second check per call.)
  if (meta) {
    TORCH_CHECK(check_entry, "gdr: torch.ops.gdr's kernels were loaded without gdr._gdr (import gdr)");
    const gdr::Status taken = check_entry(call.tensors, gdr::Options{});
    TORCH_CHECK_VALUE(taken.ok(), taken.message());
  }
  call.tensors.cu_seqlens = cu_seqlens;
  call.tensors.initial_state_indices = initial_indices;
  call.tensors.final_state_indices = final_indices;
  return call;
}

// Runs the call `t` (shaped(): sizes and indices, no tensor data yet).
void run(const Call& in, gdr::Tensors t, const at::Tensor& out, const at::Tensor& final_state) {
  t.query = in.query.data_ptr<float>(), t.key = in.key.data_ptr<float>(), t.value = in.value.data_ptr<float>();
  t.decay = in.decay.data_ptr<float>(), t.beta = in.beta.data_ptr<float>();
  t.initial_state = in.initial_state.data_ptr<float>();
  t.out = out.data_ptr<float>();
  t.final_state = final_state.data_ptr<float>();
  TORCH_CHECK(run_entry, "gdr: torch.ops.gdr's kernels were loaded without gdr._gdr (import gdr)");
  // torch's intra-op thread count (torch.set_num_threads), as torch's own
  // CPU ops use it.
  gdr::Options options;
  options.threads = at::get_num_threads();
  // gdr::run validates first and writes nothing if the call is invalid: a
  // failure validate() also finds is the caller's (ValueError), any other
  // the kernel's. One validation per call: a decode call is ~100 us.
  const gdr::Status ran = run_entry(t, options);
  if (ran.ok()) return;
  TORCH_CHECK_VALUE(gdr::validate(t).ok() && check_entry(t, options).ok(), ran.message());
  TORCH_CHECK(false, "gdr: ", ran.message());
}

at::Tensor new_out(const Call& in, const gdr::ShapedCall& call) { return at::empty(call.out, in.value.options()); }

// A tensor the op wrote in place (out=, a pool) has changed, as autograd
// must see: a copy saved for a backward is then stale, and says so. (An
// inference tensor keeps no version.)
void written(const at::Tensor& t) {
  if (!t.is_inference()) t.unsafeGetTensorImpl()->bump_version();
}

std::tuple<at::Tensor, at::Tensor> gated_delta_rule(const at::Tensor& query, const at::Tensor& key,
                                                    const at::Tensor& value, const at::Tensor& decay,
                                                    const at::Tensor& beta, const at::Tensor& initial_state,
                                                    const std::string& layout,
                                                    const c10::optional<at::Tensor>& cu_seqlens) {
  const Call in{query, key, value, decay, beta, initial_state, layout, cu_seqlens};
  // Shaped once: the outputs are allocated from the shapes read here.
  const gdr::ShapedCall call = shaped(in, nullptr, nullptr, false);
  at::Tensor out = new_out(in, call);
  at::Tensor final_state = at::empty(call.final_state, initial_state.options());
  run(in, call.tensors, out, final_state);
  return {out, final_state};
}

std::tuple<at::Tensor&, at::Tensor&> gated_delta_rule_out(const at::Tensor& query, const at::Tensor& key,
                                                          const at::Tensor& value, const at::Tensor& decay,
                                                          const at::Tensor& beta, const at::Tensor& initial_state,
                                                          const std::string& layout,
                                                          const c10::optional<at::Tensor>& cu_seqlens,
                                                          at::Tensor& out, at::Tensor& final_state_out) {
  const Call in{query, key, value, decay, beta, initial_state, layout, cu_seqlens};
  run(in, shaped(in, &out, &final_state_out, false).tensors, out, final_state_out);
  written(out);
  written(final_state_out);
  return {out, final_state_out};
}

at::Tensor gated_delta_rule_pool(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                                  const at::Tensor& decay, const at::Tensor& beta, at::Tensor& state_pool,
                                  const at::Tensor& initial_state_indices, const at::Tensor& final_state_indices,
                                  const std::string& layout, const c10::optional<at::Tensor>& cu_seqlens) {
  const Call in{query, key, value, decay, beta, state_pool, layout, cu_seqlens, &initial_state_indices,
                &final_state_indices};
  const gdr::ShapedCall call = shaped(in, nullptr, nullptr, false);
  at::Tensor out = new_out(in, call);
  run(in, call.tensors, out, state_pool);
  written(state_pool);
  return out;
}

// Fake tensors (torch.compile, torch.export, make_fx) run these before torch
// 2.4: the shapes checked as the CPU kernel checks them, nothing computed.
// From 2.4 the fakes are gdr/torch_ops.py's (torch.library.register_fake,
// which refuses an op that has a Meta kernel): they keep symbolic sizes
// symbolic (torch.compile's dynamic shapes, torch.export's Dims), where these
// read concrete ones.
#if TORCH_VERSION_MAJOR < 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 4)
#define GDR_META_KERNELS_IN_CPP 1
std::tuple<at::Tensor, at::Tensor> gated_delta_rule_meta(const at::Tensor& query, const at::Tensor& key,
                                                         const at::Tensor& value, const at::Tensor& decay,
                                                         const at::Tensor& beta, const at::Tensor& initial_state,
                                                         const std::string& layout,
                                                         const c10::optional<at::Tensor>& cu_seqlens) {
  const Call in{query, key, value, decay, beta, initial_state, layout, cu_seqlens};
  const gdr::ShapedCall call = shaped(in, nullptr, nullptr, true);
  return {new_out(in, call), at::empty(call.final_state, initial_state.options())};
}

std::tuple<at::Tensor&, at::Tensor&> gated_delta_rule_out_meta(
    const at::Tensor& query, const at::Tensor& key, const at::Tensor& value, const at::Tensor& decay,
    const at::Tensor& beta, const at::Tensor& initial_state, const std::string& layout,
    const c10::optional<at::Tensor>& cu_seqlens, at::Tensor& out, at::Tensor& final_state_out) {
  shaped({query, key, value, decay, beta, initial_state, layout, cu_seqlens}, &out, &final_state_out, true);
  return {out, final_state_out};
}

at::Tensor gated_delta_rule_pool_meta(const at::Tensor& query, const at::Tensor& key, const at::Tensor& value,
                                      const at::Tensor& decay, const at::Tensor& beta, at::Tensor& state_pool,
                                      const at::Tensor& initial_state_indices,
                                      const at::Tensor& final_state_indices, const std::string& layout,
                                      const c10::optional<at::Tensor>& cu_seqlens) {
  const Call in{query, key, value, decay, beta, state_pool, layout, cu_seqlens, &initial_state_indices,
                &final_state_indices};
  return new_out(in, shaped(in, nullptr, nullptr, true));
}
#endif

}  // namespace

TORCH_LIBRARY(gdr, m) {
  for (const gdr::python::TorchOpSchema& schema : gdr::python::kTorchOpSchemas)
    m.def((std::string(schema.name) + schema.signature).c_str());
}
TORCH_LIBRARY_IMPL(gdr, CPU, m) {
  m.impl("gated_delta_rule", &gated_delta_rule);
  m.impl("gated_delta_rule.out", &gated_delta_rule_out);
  m.impl("gated_delta_rule_pool", &gated_delta_rule_pool);
}
#ifdef GDR_META_KERNELS_IN_CPP
TORCH_LIBRARY_IMPL(gdr, Meta, m) {
  m.impl("gated_delta_rule", &gated_delta_rule_meta);
  m.impl("gated_delta_rule.out", &gated_delta_rule_out_meta);
  m.impl("gated_delta_rule_pool", &gated_delta_rule_pool_meta);
}
// torch 1.13 has no autograd fallthrough for meta tensors (CPU ones have).
TORCH_LIBRARY_IMPL(gdr, AutogradMeta, m) {
  m.impl("gated_delta_rule", &gated_delta_rule_meta);
  m.impl("gated_delta_rule.out", &gated_delta_rule_out_meta);
  m.impl("gated_delta_rule_pool", &gated_delta_rule_pool_meta);
}
#endif

PYBIND11_MODULE(_gdr_torch, m) {
  m.doc() = "torch.ops.gdr's C++ kernels (imported by gdr.torch_ops when built for the running torch).";
  m.attr("torch_version") = std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR);
  pybind11::object entry = pybind11::module_::import("gdr._gdr").attr("run_entry");
  run_entry = reinterpret_cast<gdr::python::RunEntry>(
      PyCapsule_GetPointer(entry.ptr(), gdr::python::kRunEntryCapsule));
  if (!run_entry) throw pybind11::error_already_set();
  pybind11::object check = pybind11::module_::import("gdr._gdr").attr("check_entry");
  check_entry = reinterpret_cast<gdr::python::CheckEntry>(
      PyCapsule_GetPointer(check.ptr(), gdr::python::kCheckEntryCapsule));
  if (!check_entry) throw pybind11::error_already_set();
}
