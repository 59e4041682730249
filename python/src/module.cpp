// gdr._gdr: the C++ side of the Python package. Both frontends (NumPy
// arrays in gdr.gated_delta_rule, torch tensors in torch.ops.gdr) describe a
// call as shapes and data pointers; from there one path reads the form off
// the shapes (gdr::shape_call, as gdr-run does), validates, and runs the JIT
// with the GIL released. Bad input raises ValueError naming the argument,
// before anything is written; a failing kernel raises RuntimeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <string>
#include <tuple>

#include "gdr/array_shapes.h"
#include "gdr/jit.h"
#include "gdr/runtime.h"
#include "run_entry.h"
#include "torch_op_schema.h"

namespace py = pybind11;

namespace {

// One float argument: where its data is and its shape.
struct Operand {
  float* data = nullptr;
  gdr::Shape shape;
};
using MaybeOperand = std::optional<Operand>;

struct Call {
  Operand query, key, value, decay, beta;
  MaybeOperand initial_state, out, final_state;
  std::optional<gdr::Indices> cu_seqlens, initial_state_indices, final_state_indices;
  gdr::Layout layout = gdr::Layout::HeadMajor;
  bool in_place = false;
  gdr::Options options;
};

[[noreturn]] void raise_value_error(const std::string& message) { throw py::value_error(message); }

gdr::Layout parse_layout(const std::string& text) {
  gdr::Layout layout;
  if (!gdr::parse_layout(text, &layout)) raise_value_error("layout: expected 'bhtd' or 'bthd', got '" + text + "'");
  return layout;
}

gdr::Options parse_options(const std::string& route, int threads, const std::string& state_stores = "auto",
                           const std::string& out_stores = "auto") {
  gdr::Options options;
  if (!gdr::parse_route(route, &options.route))
    raise_value_error("route: unknown route '" + route +
                      "' (auto, recurrent, chunked, chunked-autoschedule, reference)");
  if (threads < 0) raise_value_error("threads: must be >= 0 (0: the runtime decides), got " + std::to_string(threads));
  options.threads = threads;
  if (!gdr::parse_state_stores(state_stores, &options.final_state_stores))
    raise_value_error("state_stores: expected 'auto', 'cached' or 'streaming', got '" + state_stores + "'");
  if (!gdr::parse_state_stores(out_stores, &options.out_stores))
    raise_value_error("out_stores: expected 'auto', 'cached' or 'streaming', got '" + out_stores + "'");
  return options;
}

// The Python names of the arguments are the fields' names.
std::string argument_name(const Call& call, const std::string& field) {
  if (field == "layout") return std::string("layout='") + gdr::layout_name(call.layout) + "'";
  if (field == "in_place") return "in_place=True";
  return field;
}

gdr::ArrayShapes shapes_of(const Call& c) {
  gdr::ArrayShapes s;
  s.query = c.query.shape, s.key = c.key.shape, s.value = c.value.shape;
  s.decay = c.decay.shape, s.beta = c.beta.shape;
  if (c.initial_state) s.initial_state = c.initial_state->shape;
  if (c.out) s.out = c.out->shape;
  if (c.final_state) s.final_state = c.final_state->shape;
  // Indices reach here as rank-1 arrays: their shape is their length.
  if (c.cu_seqlens) s.cu_seqlens = gdr::Shape{c.cu_seqlens->size};
  if (c.initial_state_indices) s.initial_state_indices = gdr::Shape{c.initial_state_indices->size};
  if (c.final_state_indices) s.final_state_indices = gdr::Shape{c.final_state_indices->size};
  s.layout = c.layout;
  s.in_place = c.in_place;
  // The same array: the same data and shape (a view of another shape at
  // the same address is checked as an array of its own, and refused).
  s.final_is_initial = c.final_state && c.initial_state && c.final_state->data == c.initial_state->data &&
                       c.final_state->shape == c.initial_state->shape && c.in_place;
  return s;
}

// The form and sizes of `c` (outputs may still be absent).
gdr::ShapedCall shape(const Call& c) {
  gdr::ShapedCall shaped;
  if (gdr::Status s = gdr::shape_call(shapes_of(c), [&](const std::string& f) { return argument_name(c, f); },
                                      &shaped);
      !s)
    raise_value_error(s.message());
  gdr::Tensors& t = shaped.tensors;
  if (c.cu_seqlens) t.cu_seqlens = *c.cu_seqlens;
  if (c.initial_state_indices) t.initial_state_indices = *c.initial_state_indices;
  if (c.final_state_indices) t.final_state_indices = *c.final_state_indices;
  return shaped;
}

// The call with its data pointers (shape() has checked the shapes).
gdr::Tensors bound(const Call& c, gdr::Tensors t) {
  t.query = c.query.data, t.key = c.key.data, t.value = c.value.data;
  t.decay = c.decay.data, t.beta = c.beta.data;
  t.initial_state = c.initial_state ? c.initial_state->data : nullptr;
  t.out = c.out->data;
  t.final_state = c.final_state->data;
  return t;
}

// Runs the call without the GIL. gdr::run validates it first and writes
// nothing if it is invalid: a failure validate() or jit::takes() also
// finds is the caller's (ValueError), any other the kernel's
// (RuntimeError). Checked after a failure only: a decode call is ~100 us.
void run_without_gil(const gdr::Tensors& t, const gdr::Options& options) {
  gdr::Status status = gdr::Status::success();
  {
    py::gil_scoped_release unlocked;
    status = gdr::run(t, options);
  }
  if (status) return;
  if (!gdr::validate(t) || !gdr::jit::takes(t, options)) raise_value_error(status.message());
  throw std::runtime_error(status.message());
}

// ---- NumPy arrays ----------------------------------------------------------

std::string type_name(const py::handle& h) { return py::str(py::type::of(h).attr("__name__")); }

py::array as_array(const char* name, const py::object& o) {
  if (!py::isinstance<py::array>(o))
    raise_value_error(std::string(name) + ": expected a numpy.ndarray, got " + type_name(o));
  py::array a = py::reinterpret_borrow<py::array>(o);
  if (!(a.flags() & py::array::c_style))
    raise_value_error(std::string(name) + ": expected a C-contiguous array (numpy.ascontiguousarray)");
  return a;
}

Operand float_operand(const char* name, const py::object& o, bool written) {
  py::array a = as_array(name, o);
  // dtype equality, as NumPy compares them (np.dtype(np.longlong) is not
  // np.int64's object, and a dtype with metadata is not float32's).
  if (!a.dtype().equal(py::dtype::of<float>()))
    raise_value_error(std::string(name) + ": expected float32, got " + std::string(py::str(a.dtype())));
  if (written && !a.writeable()) raise_value_error(std::string(name) + ": the array is read-only");
  Operand op;
  // Read-only arrays may be inputs: gdr only reads those (mutable_data()
  // would refuse them).
  op.data = const_cast<float*>(static_cast<const float*>(a.data()));
  op.shape.assign(a.shape(), a.shape() + a.ndim());
  return op;
}

std::optional<gdr::Indices> index_operand(const char* name, const py::object& o) {
  if (o.is_none()) return std::nullopt;
  py::array a = as_array(name, o);
  gdr::Indices indices;
  if (a.dtype().equal(py::dtype::of<int32_t>())) indices.type = gdr::Indices::Type::Int32;
  else if (a.dtype().equal(py::dtype::of<int64_t>())) indices.type = gdr::Indices::Type::Int64;
  else raise_value_error(std::string(name) + ": expected int32 or int64, got " + std::string(py::str(a.dtype())));
  if (a.ndim() != 1)
    raise_value_error(std::string(name) + ": expected rank 1, got shape " +
                      gdr::shape_string(gdr::Shape(a.shape(), a.shape() + a.ndim())));
  indices.data = a.data();
  indices.size = a.shape(0);
  return indices;
}

struct NumpyCall {
  Call call;
  py::object out, final_state;  // the output arrays (given or allocated)
};

NumpyCall numpy_call(const py::object& query, const py::object& key, const py::object& value,
                     const py::object& decay, const py::object& beta, const py::object& initial_state,
                     const py::object& out, const py::object& final_state, const std::string& route, int threads,
                     const std::string& layout, const py::object& cu_seqlens,
                     const py::object& initial_state_indices, const py::object& final_state_indices,
                     bool in_place, const std::string& state_stores = "auto",
                     const std::string& out_stores = "auto", bool will_write = true) {
  NumpyCall n;
  Call& c = n.call;
  c.options = parse_options(route, threads, state_stores, out_stores);
  c.layout = parse_layout(layout);
  c.in_place = in_place;
  c.query = float_operand("query", query, false);
  c.key = float_operand("key", key, false);
  c.value = float_operand("value", value, false);
  c.decay = float_operand("decay", decay, false);
  c.beta = float_operand("beta", beta, false);
  // In place without a final_state the initial pool is written (unless the
  // call is only planned: explain()).
  if (!initial_state.is_none())
    c.initial_state =
        float_operand("initial_state", initial_state, will_write && in_place && final_state.is_none());
  if (!out.is_none()) c.out = float_operand("out", out, true);
  // In place without a final_state: the initial pool is updated.
  n.final_state = final_state.is_none() && in_place ? initial_state : final_state;
  if (!n.final_state.is_none()) c.final_state = float_operand("final_state", n.final_state, will_write);
  c.cu_seqlens = index_operand("cu_seqlens", cu_seqlens);
  c.initial_state_indices = index_operand("initial_state_indices", initial_state_indices);
  c.final_state_indices = index_operand("final_state_indices", final_state_indices);
  n.out = out;
  return n;
}

// A new C-contiguous float array whose data starts a 64-byte cache line,
// viewing a slightly larger NumPy array (its base): final states stream
// only from rows that start lines (docs/recurrent-route.md), where NumPy's
// allocator gives 16 bytes.
py::array_t<float> line_aligned_array(const gdr::Shape& shape) {
  constexpr int64_t kLineFloats = 16;
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  py::array_t<float> buffer(n + kLineFloats - 1);
  const auto address = reinterpret_cast<uintptr_t>(buffer.data());
  const int64_t offset = static_cast<int64_t>((64 - address % 64) % 64 / sizeof(float));
  return py::array_t<float>(shape, buffer.mutable_data() + offset, buffer);
}

py::tuple gated_delta_rule(const py::object& query, const py::object& key, const py::object& value,
                           const py::object& decay, const py::object& beta, const py::object& initial_state,
                           const py::object& out, const py::object& final_state, const std::string& route,
                           int threads, const std::string& layout, const py::object& cu_seqlens,
                           const py::object& initial_state_indices, const py::object& final_state_indices,
                           bool in_place, const std::string& state_stores, const std::string& out_stores) {
  NumpyCall n = numpy_call(query, key, value, decay, beta, initial_state, out, final_state, route, threads, layout,
                           cu_seqlens, initial_state_indices, final_state_indices, in_place, state_stores,
                           out_stores);
  Call& c = n.call;
  gdr::ShapedCall shaped = shape(c);
  // Outputs the caller did not give: out is written whole; a pool that
  // final_state_indices writes only some rows of starts as zeros.
  if (!c.out) {
    n.out = line_aligned_array(shaped.out);
    c.out = float_operand("out", n.out, true);
  }
  if (!c.final_state) {
    py::array_t<float> pool = line_aligned_array(shaped.final_state);
    if (c.final_state_indices) std::fill_n(pool.mutable_data(), pool.size(), 0.f);
    n.final_state = pool;
    c.final_state = float_operand("final_state", n.final_state, true);
  }
  run_without_gil(bound(c, shaped.tensors), c.options);
  return py::make_tuple(n.out, n.final_state);
}

std::string explain(const py::object& query, const py::object& key, const py::object& value,
                    const py::object& decay, const py::object& beta, const py::object& initial_state,
                    const std::string& route, int threads, const std::string& layout,
                    const py::object& cu_seqlens, const py::object& initial_state_indices,
                    const py::object& final_state_indices, bool in_place) {
  NumpyCall n = numpy_call(query, key, value, decay, beta, initial_state, py::none(), py::none(), route, threads,
                           layout, cu_seqlens, initial_state_indices, final_state_indices, in_place, "auto", "auto",
                           /*will_write=*/false);
  gdr::jit::Plan plan;
  if (gdr::Status s = gdr::jit::plan(shape(n.call).tensors, n.call.options, &plan); !s)
    raise_value_error(s.message());
  return plan.str();
}

// ---- Data pointers (torch tensors) -----------------------------------------

// (data pointer, shape), as torch.ops.gdr's implementation passes a tensor
// it has checked (float32, contiguous, on the CPU).
using PointerAndShape = std::pair<uintptr_t, gdr::Shape>;
Operand pointer_operand(const PointerAndShape& p) { return {reinterpret_cast<float*>(p.first), p.second}; }

// (data pointer, "int32" or "int64", length): offsets or slot indices the
// torch op's Python kernels have checked (rank 1, contiguous, on the CPU).
using IndexPointer = std::tuple<uintptr_t, std::string, int64_t>;
std::optional<gdr::Indices> pointer_indices(const std::optional<IndexPointer>& p) {
  if (!p) return std::nullopt;
  gdr::Indices indices;
  indices.data = reinterpret_cast<const void*>(std::get<0>(*p));
  const std::string& type = std::get<1>(*p);
  if (type != "int32" && type != "int64") raise_value_error("expected an index type int32 or int64, got " + type);
  indices.type = type == "int32" ? gdr::Indices::Type::Int32 : gdr::Indices::Type::Int64;
  indices.size = std::get<2>(*p);
  return indices;
}

// The torch ops' calls: query, key, value, decay, beta, initial_state, out,
// final_state; the pool op (slot indices given) passes its state_pool as
// both states, updated in place.
Call pointer_call(const std::vector<PointerAndShape>& operands, const std::string& route, int threads,
                  const std::string& layout, const std::optional<IndexPointer>& cu_seqlens,
                  const std::optional<IndexPointer>& initial_state_indices,
                  const std::optional<IndexPointer>& final_state_indices) {
  if (operands.size() != 8)
    raise_value_error("expected 8 (data pointer, shape) pairs, got " + std::to_string(operands.size()));
  Call c;
  c.options = parse_options(route, threads);
  c.layout = parse_layout(layout);
  Operand* const fields[] = {&c.query, &c.key, &c.value, &c.decay, &c.beta};
  for (int i = 0; i < 5; ++i) *fields[i] = pointer_operand(operands[i]);
  c.initial_state = pointer_operand(operands[5]);
  c.out = pointer_operand(operands[6]);
  c.final_state = pointer_operand(operands[7]);
  c.cu_seqlens = pointer_indices(cu_seqlens);
  c.initial_state_indices = pointer_indices(initial_state_indices);
  c.final_state_indices = pointer_indices(final_state_indices);
  c.in_place = c.initial_state_indices.has_value();
  return c;
}

// The torch ops' output shapes (out, final_state_out) from their arguments'
// shapes, checked as gdr::shape_call checks them: for fake and meta tensors,
// which have no data. `shapes`: query, key, value, decay, beta,
// initial_state (the pool op's state_pool), then out and final_state_out
// for the out variant; the index tensors by their shapes; slot indices
// make it the pool op.
std::pair<gdr::Shape, gdr::Shape> torch_op_shapes(const std::vector<gdr::Shape>& shapes, const std::string& layout,
                                                  const std::optional<gdr::Shape>& cu_seqlens,
                                                  const std::optional<gdr::Shape>& initial_state_indices,
                                                  const std::optional<gdr::Shape>& final_state_indices) {
  if (shapes.size() != 6 && shapes.size() != 8)
    raise_value_error("expected 6 or 8 shapes, got " + std::to_string(shapes.size()));
  gdr::ArrayShapes a;
  a.query = shapes[0], a.key = shapes[1], a.value = shapes[2], a.decay = shapes[3], a.beta = shapes[4];
  a.initial_state = shapes[5];
  if (shapes.size() == 8) a.out = shapes[6], a.final_state = shapes[7];
  a.layout = parse_layout(layout);
  a.cu_seqlens = cu_seqlens;
  a.initial_state_indices = initial_state_indices;
  a.final_state_indices = final_state_indices;
  gdr::ShapedCall call;
  if (gdr::Status s = gdr::python::shape_torch_op_call(a, &call); !s) raise_value_error(s.message());
  if (gdr::Status s = gdr::jit::takes(call.tensors, gdr::Options{}); !s) raise_value_error(s.message());
  return {call.out, call.final_state};
}

void run_pointers(const std::vector<PointerAndShape>& operands, const std::string& route, int threads,
                  const std::string& layout, const std::optional<IndexPointer>& cu_seqlens,
                  const std::optional<IndexPointer>& initial_state_indices,
                  const std::optional<IndexPointer>& final_state_indices) {
  const Call c =
      pointer_call(operands, route, threads, layout, cu_seqlens, initial_state_indices, final_state_indices);
  run_without_gil(bound(c, shape(c).tensors), c.options);
}

// Seconds per call of `repetitions` gdr::run calls on run_pointers'
// arguments, timed in C++ without the GIL: the C++ API's own cost, which
// the bindings' overhead is measured against (python/benchmarks).
double time_pointers(const std::vector<PointerAndShape>& operands, const std::string& route, int threads,
                     int repetitions) {
  const Call c = pointer_call(operands, route, threads, "bhtd", std::nullopt, std::nullopt, std::nullopt);
  const gdr::Tensors t = bound(c, shape(c).tensors);
  if (gdr::Status s = gdr::validate(t); !s) raise_value_error(s.message());
  py::gil_scoped_release unlocked;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < repetitions; ++i)
    if (gdr::Status s = gdr::run(t, c.options); !s) throw std::runtime_error(s.message());
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / repetitions;
}

void configure(const std::string& cache_dir, const std::string& tuning_db, int verbosity) {
  gdr::jit::Options options;
  options.cache_dir = cache_dir;
  options.tuning_db = tuning_db;
  options.verbosity = verbosity;
  if (gdr::Status s = gdr::jit::install(options); !s) raise_value_error(s.message());
}

}  // namespace

PYBIND11_MODULE(_gdr, m) {
  m.doc() = "gdr's C++ side; use the gdr package (gdr.gated_delta_rule, torch.ops.gdr).";
  m.attr("__version__") = GDR_VERSION;
  // The generated routes, with the options of the environment (GDR_CACHE_DIR,
  // GDR_VERBOSE), until configure() says otherwise.
  if (gdr::Status s = gdr::jit::install(); !s) throw std::runtime_error("gdr: " + s.message());
  gdr::python::RunEntry entry = [](const gdr::Tensors& t, const gdr::Options& options) { return gdr::run(t, options); };
  m.attr("run_entry") = py::capsule(reinterpret_cast<void*>(entry), gdr::python::kRunEntryCapsule);
  gdr::python::CheckEntry check = gdr::jit::takes;
  m.attr("check_entry") = py::capsule(reinterpret_cast<void*>(check), gdr::python::kCheckEntryCapsule);
  m.def("gated_delta_rule", &gated_delta_rule);
  m.def("explain", &explain);
  m.def("run_pointers", &run_pointers, py::arg("operands"), py::arg("route"), py::arg("threads"),
        py::arg("layout") = "bhtd", py::arg("cu_seqlens") = py::none(),
        py::arg("initial_state_indices") = py::none(), py::arg("final_state_indices") = py::none());
  m.def("torch_op_shapes", &torch_op_shapes, py::arg("shapes"), py::arg("layout") = "bhtd",
        py::arg("cu_seqlens") = py::none(), py::arg("initial_state_indices") = py::none(),
        py::arg("final_state_indices") = py::none());
  py::list schemas;
  for (const gdr::python::TorchOpSchema& schema : gdr::python::kTorchOpSchemas)
    schemas.append(py::make_tuple(schema.name, schema.signature));
  m.attr("torch_op_schemas") = schemas;
  m.def("time_pointers", &time_pointers);
  m.def("configure", &configure);
}
