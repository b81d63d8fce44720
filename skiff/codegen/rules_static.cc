// Static-shape fast paths. When the program fixes the shapes and dtypes of an op's
// variables at compile time (every dim known), small elementwise ops become loops over the
// planned buffers and a matmul a direct gemm call with its problem made once: what the
// kernel would compute, without the per-call shape work that dominates tiny tensors. The
// loops compute exactly what the kernels compute (same arithmetic in the same dtype); above
// kMaxElements the kernels (which split large tensors across threads) are called instead.
#include "skiff/codegen/op_rules.h"
#include "skiff/codegen/program_emitter.h"

namespace skiff::codegen {

namespace {

// Above this many elements the kernels' own (possibly multi-threaded) loops run.
constexpr int64_t kMaxElements = 1 << 14;

struct StaticVar {
  std::string expr;      // "v.h"
  std::string cpp_type;  // "float"
  int64_t numel = 0;
  Shape shape;
};

const char* cpp_type_of(DType t) {
  switch (t) {
    case DType::kF32:
      return "float";
    case DType::kF64:
      return "double";
    case DType::kI32:
      return "int32_t";
    case DType::kI64:
      return "int64_t";
    case DType::kBool:
      return "bool";
    case DType::kI8:
      return "int8_t";
    case DType::kU8:
      return "uint8_t";
    case DType::kI16:
      return "int16_t";
    default:
      return nullptr;
  }
}

// The variable's static form, or false when its shape or dtype is not fixed.
bool static_var(const VarDesc* d, const std::string& expr, StaticVar* out) {
  if (!d || d->kind != VarKind::kDenseTensor || !cpp_type_of(d->dtype)) return false;
  for (int i = 0; i < d->shape.rank(); ++i)
    if (d->shape[i] < 0) return false;
  out->expr = expr;
  out->cpp_type = cpp_type_of(d->dtype);
  out->numel = d->shape.numel();
  out->shape = d->shape;
  return out->numel <= kMaxElements;
}

bool static_in(OpEmitter& e, const char* slot, StaticVar* out) {
  return e.has_in(slot) && static_var(e.in_var(slot), e.in(slot), out);
}
bool static_out(OpEmitter& e, const char* slot, StaticVar* out) {
  return e.has_out(slot) && static_var(e.out_var(slot), e.out_ref(slot), out);
}

// The data of `v` for reading (`write` false) or writing: a checked access, or inside a
// loop whose buffers are bound before it (ProgramEmitter::try_emit_bound_loop) the bound
// pointer.
std::string ptr_expr(OpEmitter& e, const StaticVar& v, bool write) {
  ProgramEmitter& pe = e.program_emitter();
  if (pe.binding()) return pe.bind(v.expr, v.cpp_type, v.shape, write);
  if (write) {
    return "codegen::out_data<" + v.cpp_type + ">(&" + v.expr + ", " +
           OpEmitter::shape_lit(v.shape) + ")";
  }
  return "codegen::in_data<" + v.cpp_type + ">(" + v.expr + ", " + std::to_string(v.numel) + ", " +
         OpEmitter::lit(e.what()) + ")";
}

std::string in_ptr(OpEmitter& e, const StaticVar& v, const char* name) {
  if (e.program_emitter().binding()) {
    return "const " + v.cpp_type + "* " + name + " = " + ptr_expr(e, v, false) + ";";
  }
  return "const " + v.cpp_type + "* " + name + " = codegen::in_data<" + v.cpp_type + ">(" + v.expr +
         ", " + std::to_string(v.numel) + ", " + OpEmitter::lit(e.what()) + ");";
}
std::string out_ptr(OpEmitter& e, const StaticVar& v, const char* name) {
  if (e.program_emitter().binding()) {
    return v.cpp_type + "* " + name + " = " + ptr_expr(e, v, true) + ";";
  }
  return v.cpp_type + "* " + name + " = codegen::out_data<" + v.cpp_type + ">(&" + v.expr + ", " +
         OpEmitter::shape_lit(v.shape) + ");";
}

// out[j] = <expr of x[j] (and y[j])> over n elements; one element needs no loop.
void emit_loop(OpEmitter& e, int64_t n, std::string body) {
  if (n == 1) {
    for (size_t p = body.find("[j]"); p != std::string::npos; p = body.find("[j]"))
      body.replace(p, 3, "[0]");
    e.line(body + ";");
    return;
  }
  e.line("#pragma omp simd");
  e.line("for (int64_t j = 0; j < " + std::to_string(n) + "; ++j) " + body + ";");
}

}  // namespace

bool emit_static_binary(OpEmitter& e, const char* cpp_op) {
  StaticVar x, y, out;
  if (!static_in(e, "X", &x) || !static_in(e, "Y", &y) || !static_out(e, "Out", &out)) return false;
  if (x.shape != y.shape || x.shape != out.shape || x.cpp_type != y.cpp_type ||
      x.cpp_type != out.cpp_type || (x.cpp_type != "float" && x.cpp_type != "double")) {
    return false;
  }
  e.open("{");
  e.line(in_ptr(e, x, "x"));
  e.line(in_ptr(e, y, "y"));
  e.line(out_ptr(e, out, "out"));
  emit_loop(e, x.numel, std::string("out[j] = x[j] ") + cpp_op + " y[j]");
  e.close();
  e.program_emitter().count_fast_op();
  return true;
}

bool emit_static_compare(OpEmitter& e, const char* cpp_op) {
  StaticVar x, y, out;
  if (!static_in(e, "X", &x) || !static_in(e, "Y", &y) || !static_out(e, "Out", &out)) return false;
  if (x.shape != y.shape || x.shape != out.shape || x.cpp_type != y.cpp_type ||
      out.cpp_type != "bool" || x.cpp_type == "bool") {
    return false;
  }
  e.open("{");
  e.line(in_ptr(e, x, "x"));
  e.line(in_ptr(e, y, "y"));
  e.line(out_ptr(e, out, "out"));
  emit_loop(e, x.numel, std::string("out[j] = x[j] ") + cpp_op + " y[j]");
  e.close();
  e.program_emitter().count_fast_op();
  return true;
}

bool emit_static_increment(OpEmitter& e) {
  StaticVar x, out;
  if (!static_in(e, "X", &x) || !static_out(e, "Out", &out)) return false;
  if (x.shape != out.shape || x.cpp_type != out.cpp_type || x.cpp_type == "bool") return false;
  const double step = e.attr<double>("step");
  const bool integral = x.cpp_type != "float" && x.cpp_type != "double";
  if (integral && (step != static_cast<double>(static_cast<int64_t>(step)))) return false;
  const std::string step_lit =
      integral ? OpEmitter::lit(static_cast<int64_t>(step)) : OpEmitter::lit(step);
  e.open("{");
  if (e.same_var("X", "Out")) {
    e.line(out_ptr(e, out, "out"));
    emit_loop(e, x.numel, "out[j] += static_cast<" + x.cpp_type + ">(" + step_lit + ")");
  } else {
    e.line(in_ptr(e, x, "x"));
    e.line(out_ptr(e, out, "out"));
    emit_loop(e, x.numel, "out[j] = x[j] + static_cast<" + x.cpp_type + ">(" + step_lit + ")");
  }
  e.close();
  e.program_emitter().count_fast_op();
  return true;
}

bool emit_static_assign(OpEmitter& e) {
  StaticVar x, out;
  if (!static_in(e, "X", &x) || !static_out(e, "Out", &out)) return false;
  if (x.shape != out.shape || x.cpp_type != out.cpp_type) return false;
  e.open("{");
  e.line(in_ptr(e, x, "x"));
  e.line(out_ptr(e, out, "out"));
  emit_loop(e, x.numel, "out[j] = x[j]");
  e.close();
  e.program_emitter().count_fast_op();
  return true;
}

bool emit_static_relu(OpEmitter& e) {
  StaticVar x, out;
  if (!static_in(e, "X", &x) || !static_out(e, "Out", &out)) return false;
  if (x.shape != out.shape || x.cpp_type != out.cpp_type ||
      (x.cpp_type != "float" && x.cpp_type != "double")) {
    return false;
  }
  e.open("{");
  e.line(in_ptr(e, x, "x"));
  e.line(out_ptr(e, out, "out"));
  // As the kernel: x < 0 gives 0, anything else (NaN included) passes through.
  emit_loop(e, x.numel, "out[j] = x[j] < 0 ? " + x.cpp_type + "(0) : x[j]");
  e.close();
  e.program_emitter().count_fast_op();
  return true;
}

bool emit_static_eigen_activation(OpEmitter& e, const char* eigen_fn) {
  StaticVar x, out;
  if (!static_in(e, "X", &x) || !static_out(e, "Out", &out)) return false;
  if (x.shape != out.shape || x.cpp_type != out.cpp_type ||
      (x.cpp_type != "float" && x.cpp_type != "double")) {
    return false;
  }
  e.include("eigen");
  const std::string array = "Eigen::Array<" + x.cpp_type + ", " + std::to_string(x.numel) + ", 1>";
  e.open("{");
  e.line(in_ptr(e, x, "x"));
  e.line(out_ptr(e, out, "out"));
  // The kernel's Eigen expression over a fixed size (inlined, vectorised, same values).
  e.line("Eigen::Map<const " + array + "> x_array(x);");
  e.line("Eigen::Map<" + array + "> out_array(out);");
  e.line(std::string("out_array = x_array.") + eigen_fn + "();");
  e.close();
  e.program_emitter().count_fast_op();
  return true;
}

// A tiny product as skiff's direct gemm loop computes it (kernels/cpu/gemm.cc: for each
// row and each column in whole 64-byte vectors, the products of even and of odd k summed
// apart, then added), inline and so specialised to the sizes: the same values, without
// the call. Only where gemm takes that loop: no transposes, m*n*k within its direct
// limit, n a multiple of the vector width. The columns go in blocks of one vector register
// of the CPU compiled for (codegen::kVectorBytes, 32 or 64 bytes), so that the two sums
// stay in registers (a 16-float row in 32-byte registers spills them: W1 compiled for
// x86-64-v3 ran 2.5x slower); each column's sum is the same in any blocking.
bool emit_inline_product(OpEmitter& e, const StaticVar& x, const StaticVar& y, const StaticVar& out,
                         int64_t m, int64_t n, int64_t k, bool tx, bool ty) {
  constexpr int64_t kDirectMacs = 1 << 15;  // gemm.cc: kDirectMacsF32 / kDirectMacsF64
  const bool f32 = x.cpp_type == "float";
  const int64_t lanes = f32 ? 16 : 8;
  if (tx || ty || m * n * k > kDirectMacs || n % lanes != 0 || n > 256 || k < 1) return false;
  const std::string T = x.cpp_type, N = std::to_string(n), K = std::to_string(k);
  e.open("{");
  e.line(in_ptr(e, x, "a"));
  e.line(in_ptr(e, y, "b"));
  e.line(out_ptr(e, out, "c"));
  e.line("// c = a . b [" + std::to_string(m) + " x " + K + "] . [" + K + " x " + N +
         "] as gemm's direct loop sums it: even and odd k apart, one register of columns at a "
         "time.");
  e.line("constexpr int64_t C = codegen::kVectorBytes / sizeof(" + T + ");");
  e.open("for (int64_t i = 0; i < " + std::to_string(m) + "; ++i) {");
  e.open("for (int64_t jb = 0; jb < " + N + "; jb += C) {");
  e.line(T + " even[C] = {}, odd[C] = {};");
  if (k >= 2) {
    e.line("#pragma GCC unroll 8");
    e.open("for (int64_t kk = 0; kk + 2 <= " + K + "; kk += 2) {");
    e.line("const " + T + " a0 = a[i * " + K + " + kk], a1 = a[i * " + K + " + kk + 1];");
    e.line("#pragma omp simd");
    e.open("for (int64_t j = 0; j < C; ++j) {");
    e.line("even[j] += b[kk * " + N + " + jb + j] * a0;");
    e.line("odd[j] += b[(kk + 1) * " + N + " + jb + j] * a1;");
    e.close();
    e.close();
  }
  if (k % 2 == 1) {
    const std::string last = std::to_string(k - 1);
    e.line("#pragma omp simd");
    e.line("for (int64_t j = 0; j < C; ++j) even[j] += b[" + last + " * " + N +
           " + jb + j] * a[i * " + K + " + " + last + "];");
  }
  e.line("#pragma omp simd");
  e.line("for (int64_t j = 0; j < C; ++j) c[i * " + N + " + jb + j] = even[j] + odd[j];");
  e.close();
  e.close();
  e.close();
  e.program_emitter().count_fast_op();
  return true;
}

bool emit_static_matmul(OpEmitter& e) {
  StaticVar x, y, out;
  if (!static_in(e, "X", &x) || !static_in(e, "Y", &y) || !static_out(e, "Out", &out)) return false;
  if (x.shape.rank() != 2 || y.shape.rank() != 2 || x.cpp_type != y.cpp_type ||
      x.cpp_type != out.cpp_type || (x.cpp_type != "float" && x.cpp_type != "double") ||
      e.same_var("X", "Out") || e.in("Y") == out.expr) {
    return false;
  }
  const bool tx = e.attr<bool>("trans_x"), ty = e.attr<bool>("trans_y");
  const int64_t m = tx ? x.shape[1] : x.shape[0], kx = tx ? x.shape[0] : x.shape[1];
  const int64_t ky = ty ? y.shape[1] : y.shape[0], n = ty ? y.shape[0] : y.shape[1];
  if (kx != ky || out.shape != Shape{m, n}) return false;
  if (emit_inline_product(e, x, y, out, m, n, kx, tx, ty)) return true;
  e.include("gemm");
  const std::string problem = e.unique("gemm");
  e.line("static const k::GemmProblem " + problem + " = [] {");
  e.line("  k::GemmProblem p;  // [" + std::to_string(m) + " x " + std::to_string(kx) + "] . [" +
         std::to_string(kx) + " x " + std::to_string(n) + "]");
  e.line("  p.m = " + std::to_string(m) + ", p.n = " + std::to_string(n) +
         ", p.k = " + std::to_string(kx) + ";");
  e.line("  p.trans_a = " + OpEmitter::lit(tx) + ", p.trans_b = " + OpEmitter::lit(ty) + ";");
  e.line("  return p;");
  e.line("}();");
  e.line("k::gemm(" + problem + ", " + ptr_expr(e, x, false) + ",");
  e.line("        " + ptr_expr(e, y, false) + ",");
  e.line("        " + ptr_expr(e, out, true) + ");");
  e.program_emitter().count_fast_op();
  return true;
}

}  // namespace skiff::codegen
