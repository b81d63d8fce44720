// ONNX rules for ops that move, pick or make elements: reshapes and views, joins and
// splits, slices and gathers, broadcasts, constants, ranges, where and embedding.
#include "skiff/export/onnx/onnx_rules.h"

namespace skiff::onnx_export {

namespace {

void reshape(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const std::string shape = g.ints(op.attr<std::vector<int64_t>>("shape"));
  g.node("Reshape", {x, shape}, {g.out(op, "Out")});
}

void transpose(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const int rank = g.shape(op, "X").rank();
  std::vector<int64_t> perm;
  for (int64_t a : op.attr<std::vector<int64_t>>("axis")) perm.push_back(normalize_axis(a, rank));
  g.node("Transpose", {x}, {g.out(op, "Out")}).ints("perm", perm);
}

// Dims start..stop merged into one: a Reshape to [0] * start + [-1] + the dims after.
void flatten(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const Shape& shape = g.shape(op, "X");
  const int rank = shape.rank();
  if (rank == 0) {
    g.node("Reshape", {x, g.ints({1})}, {g.out(op, "Out")});
    return;
  }
  const int start = static_cast<int>(normalize_axis(op.attr<int64_t>("start_axis"), rank));
  const int stop = static_cast<int>(normalize_axis(op.attr<int64_t>("stop_axis"), rank));
  SKIFF_CHECK(start <= stop, "start_axis ", start, " is after stop_axis ", stop);
  std::vector<int64_t> head(static_cast<size_t>(start), 0);
  head.push_back(-1);
  std::string target = g.ints(head);
  if (stop + 1 < rank) {
    const std::string tail = dims_of(g, x, shape, stop + 1, rank);
    const std::string joined = g.temp("target_shape");
    g.node("Concat", {target, tail}, {joined}).i("axis", 0);
    target = joined;
  }
  g.node("Reshape", {x, target}, {g.out(op, "Out")});
}

// skiff drops only the named axes that have size 1 (all size-1 dims when none are
// named); ONNX Squeeze wants exactly the dims to drop.
void squeeze(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const Shape& in = g.shape(op, "X");
  const std::vector<int64_t> named = op.attr<std::vector<int64_t>>("axes");
  if (named.empty()) {
    g.node("Squeeze", {x}, {g.out(op, "Out")});
    return;
  }
  std::vector<int64_t> ones, maybe;
  for (int64_t a : named) {
    const int64_t i = normalize_axis(a, in.rank());
    if (in[i] == 1) ones.push_back(i);
    if (in[i] == 1 || in[i] < 0) maybe.push_back(i);
  }
  const size_t dropped = static_cast<size_t>(in.rank() - g.out_shape(op, "Out").rank());
  const std::vector<int64_t>& axes = dropped == maybe.size() ? maybe : ones;
  SKIFF_CHECK(dropped == axes.size(), "cannot tell which of the axes ", Shape(named), " of a ", in,
              " input have size 1");
  if (axes.empty()) {
    g.node("Identity", {x}, {g.out(op, "Out")});
  } else {
    g.node("Squeeze", {x, g.ints(axes)}, {g.out(op, "Out")});
  }
}

// skiff inserts the new dims one after another (each axis indexes the grown shape,
// -1 appends); ONNX names the new dims' final positions.
void unsqueeze(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  std::vector<bool> is_new(static_cast<size_t>(g.shape(op, "X").rank()), false);
  for (int64_t a : op.attr<std::vector<int64_t>>("axes")) {
    const int64_t size = static_cast<int64_t>(is_new.size());
    const int64_t pos = a < 0 ? a + size + 1 : a;
    SKIFF_CHECK(pos >= 0 && pos <= size, "axis ", a, " is outside a rank-", size, " shape");
    is_new.insert(is_new.begin() + pos, true);
  }
  std::vector<int64_t> axes;
  for (size_t i = 0; i < is_new.size(); ++i)
    if (is_new[i]) axes.push_back(static_cast<int64_t>(i));
  g.node("Unsqueeze", {x, g.ints(axes)}, {g.out(op, "Out")});
}

void concat(GraphEmitter& g, const OpDesc& op) {
  const std::vector<std::string> xs = g.ins(op, "X");
  SKIFF_CHECK(!xs.empty(), "X is empty");
  g.node("Concat", xs, {g.out(op, "Out")}).i("axis", op.attr<int64_t>("axis"));
}

void stack(GraphEmitter& g, const OpDesc& op) {
  const std::vector<std::string> xs = g.ins(op, "X");
  SKIFF_CHECK(!xs.empty(), "X is empty");
  const int64_t axis = normalize_axis(op.attr<int64_t>("axis"), g.shape(op, "X").rank() + 1);
  std::vector<std::string> grown;
  for (const std::string& x : xs) grown.push_back(g.apply("Unsqueeze", {x, g.ints({axis})}));
  g.node("Concat", grown, {g.out(op, "Y")}).i("axis", axis);
}

void split(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const Shape& shape = g.shape(op, "X");
  const int64_t axis = normalize_axis(op.attr<int64_t>("axis"), shape.rank());
  const int64_t num = op.attr<int64_t>("num");
  std::vector<std::string> outs;
  for (const std::string& v : op.output("Out")) outs.push_back(g.define(v));
  if (num > 0) {
    NodeWriter n = g.node("Split", {x}, outs);
    n.i("axis", axis);
    if (g.opset() >= 18) n.i("num_outputs", num);
    return;
  }
  std::vector<int64_t> sections = op.attr<std::vector<int64_t>>("sections");
  int64_t known = 0, rest = -1;
  for (size_t k = 0; k < sections.size(); ++k) {
    if (sections[k] < 0)
      rest = static_cast<int64_t>(k);
    else
      known += sections[k];
  }
  if (rest >= 0) {
    SKIFF_CHECK(shape[axis] >= 0, "a -1 section needs the split dim to be known, X is ", shape);
    sections[rest] = shape[axis] - known;
  }
  g.node("Split", {x, g.ints(sections)}, outs).i("axis", axis);
}

void slice(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "Input");
  std::vector<std::string> inputs = {x, g.ints(op.attr<std::vector<int64_t>>("starts")),
                                     g.ints(op.attr<std::vector<int64_t>>("ends")),
                                     g.ints(op.attr<std::vector<int64_t>>("axes"))};
  if (op.type == "strided_slice")
    inputs.push_back(g.ints(op.attr<std::vector<int64_t>>("strides")));
  const std::vector<int64_t> decrease = op.attr<std::vector<int64_t>>("decrease_axis");
  if (decrease.empty()) {
    g.node("Slice", inputs, {g.out(op, "Out")});
    return;
  }
  const std::string box = g.apply("Slice", inputs);
  g.node("Squeeze", {box, g.ints(decrease)}, {g.out(op, "Out")});
}

void gather(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X"), index = g.in(op, "Index");
  g.node("Gather", {x, index}, {g.out(op, "Out")}).i("axis", op.attr<int64_t>("axis"));
}

void gather_nd(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  std::string index = g.in(op, "Index");
  if (g.dtype(op, "Index") != DType::kI64) {
    const std::string cast = g.temp("index64");
    g.node("Cast", {index}, {cast}).i("to", onnx_elem_type(DType::kI64));
    index = cast;
  }
  g.node("GatherND", {x, index}, {g.out(op, "Out")});
}

// Expand broadcasts both ways, so a -1 ("keep X's dim") becomes 1.
void expand(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  std::vector<int64_t> shape = op.attr<std::vector<int64_t>>("shape");
  for (int64_t& d : shape) d = d < 0 ? 1 : d;
  g.node("Expand", {x, g.ints(shape)}, {g.out(op, "Out")});
}

void tile(GraphEmitter& g, const OpDesc& op) {
  std::string x = g.in(op, "X");
  const int rank = g.shape(op, "X").rank();
  std::vector<int64_t> repeats = op.attr<std::vector<int64_t>>("repeat_times");
  const int n = static_cast<int>(repeats.size());
  if (n < rank) repeats.insert(repeats.begin(), static_cast<size_t>(rank - n), 1);
  if (n > rank) {
    std::vector<int64_t> lead;
    for (int i = 0; i < n - rank; ++i) lead.push_back(i);
    x = g.apply("Unsqueeze", {x, g.ints(lead)});
  }
  g.node("Tile", {x, g.ints(repeats)}, {g.out(op, "Out")});
}

void fill_constant(GraphEmitter& g, const OpDesc& op) {
  const Shape shape(op.attr<std::vector<int64_t>>("shape"));
  const DType t = dtype_from_name(op.attr<std::string>("dtype"));
  const double value = op.attr<double>("value");
  SKIFF_CHECK(shape.known(), "shape ", shape, " has unknown dims");
  if (shape.numel() <= 64) {
    std::vector<double> values(static_cast<size_t>(shape.numel()), value);
    g.node("Constant", {}, {g.out(op, "Out")}).t("value", tensor_proto(shape, t, values));
    return;
  }
  g.node("ConstantOfShape", {g.ints(shape.vec())}, {g.out(op, "Out")})
      .t("value", tensor_proto(Shape{1}, t, {value}));
}

void fill_like(GraphEmitter& g, const OpDesc& op) {
  SKIFF_CHECK(g.var_desc(op.first_input("X")).kind == VarKind::kDenseTensor,
              "only tensors (not tensor arrays) export");
  const std::string x = g.in(op, "X");
  // fill_any_like has value and dtype ("": X's); fill_zeros_like is zeros of X's dtype.
  const bool any = op.type == "fill_any_like";
  const std::string name = any ? op.attr<std::string>("dtype") : "";
  const DType t = name.empty() ? g.dtype(op, "X") : dtype_from_name(name);
  const double value = any ? op.attr<double>("value") : 0.0;
  g.node("ConstantOfShape", {g.apply("Shape", {x})}, {g.out(op, "Out")})
      .t("value", tensor_proto(Shape{1}, t, {value}));
}

void shape(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  g.node("Shape", {x}, {g.out(op, "Out")});
}

// A bound from its one-element input tensor (cast to Out's dtype) or its attr.
std::string range_bound(GraphEmitter& g, const OpDesc& op, const char* slot, const char* attr,
                        DType t) {
  if (!g.has_in(op, slot)) return g.scalar(op.attr<double>(attr), t);
  const std::string v = g.apply("Reshape", {g.in(op, slot), g.ints({})});
  if (g.dtype(op, slot) == t) return v;
  const std::string cast = g.temp("bound");
  g.node("Cast", {v}, {cast}).i("to", onnx_elem_type(t));
  return cast;
}

void arange(GraphEmitter& g, const OpDesc& op) {
  const DType t = dtype_from_name(op.attr<std::string>("dtype"));
  const std::string start = range_bound(g, op, "Start", "start", t);
  const std::string end = range_bound(g, op, "End", "end", t);
  const std::string step = range_bound(g, op, "Step", "step", t);
  g.node("Range", {start, end, step}, {g.out(op, "Out")});
}

void where(GraphEmitter& g, const OpDesc& op) {
  const std::string c = g.in(op, "Condition"), x = g.in(op, "X"), y = g.in(op, "Y");
  g.node("Where", {c, x, y}, {g.out(op, "Out")});
}

// Rows of W per id; ids equal to padding_idx give zero rows.
void embedding(GraphEmitter& g, const OpDesc& op) {
  const std::string w = g.in(op, "W"), ids = g.in(op, "Ids");
  const int64_t padding = op.attr<int64_t>("padding_idx");
  if (padding < 0) {
    g.node("Gather", {w, ids}, {g.out(op, "Out")}).i("axis", 0);
    return;
  }
  const std::string rows = g.apply("Gather", {w, ids});
  const std::string pad = g.scalar(static_cast<double>(padding), g.dtype(op, "Ids"));
  const std::string keep = g.apply("Not", {g.apply("Equal", {ids, pad})});
  const std::string mask = g.temp("keep");
  g.node("Cast", {keep}, {mask}).i("to", onnx_elem_type(g.dtype(op, "W")));
  g.node("Mul", {rows, g.apply("Unsqueeze", {mask, g.ints({-1})})}, {g.out(op, "Out")});
}

void one_hot(GraphEmitter& g, const OpDesc& op) {
  const std::string x = g.in(op, "X");
  const DType t = dtype_from_name(op.attr<std::string>("dtype"));
  const std::string depth = g.scalar(static_cast<double>(op.attr<int64_t>("depth")), DType::kI64);
  const std::string values = g.model().constant("_off_on", tensor_proto(Shape{2}, t, {0, 1}));
  g.node("OneHot", {x, depth, values}, {g.out(op, "Out")}).i("axis", -1);
}

}  // namespace

void add_tensor_rules(RuleTable& t) {
  t["reshape"] = reshape;
  t["transpose"] = transpose;
  t["flatten"] = flatten;
  t["squeeze"] = squeeze;
  t["unsqueeze"] = unsqueeze;
  t["concat"] = concat;
  t["stack"] = stack;
  t["split"] = split;
  t["slice"] = slice;
  t["strided_slice"] = slice;
  t["gather"] = gather;
  t["gather_nd"] = gather_nd;
  t["expand"] = expand;
  t["broadcast_to"] = expand;
  t["tile"] = tile;
  t["fill_constant"] = fill_constant;
  t["fill_any_like"] = fill_like;
  t["fill_zeros_like"] = fill_like;
  t["shape"] = shape;
  t["arange"] = arange;
  t["where"] = where;
  t["embedding"] = embedding;
  t["one_hot"] = one_hot;
}

}  // namespace skiff::onnx_export
