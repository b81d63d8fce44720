// The parameter-server ops of a trainer's program (ps_split makes them from a training
// program): they pull rows and dense values from the servers and push gradients through
// the process's connection (ps_connection.h). They live outside libskiff, registered by an
// OpRegistrar, because they call libskiff_ps. None is differentiable: the gradients they
// push are the ones the program's backward computed.
#include <cstring>
#include <vector>

#include "skiff/ops/kernel_context.h"
#include "skiff/ops/registry.h"
#include "skiff/ops/shape_context.h"
#include "skiff/ps/client.h"
#include "skiff/ps/id_index.h"
#include "skiff/ps_ops/ps_connection.h"
#include "skiff/ps_ops/ps_geo.h"

namespace skiff {

namespace {

constexpr int64_t kNoPadding = -1;
constexpr int64_t kProgramConnection = 0;

// The distinct ids of ids[0, n) other than `padding`, in order of first appearance, and
// per position the index of its id among them (-1 for padding): each row travels once.
struct DistinctIds {
  std::vector<int64_t> ids;
  std::vector<int64_t> where;

  DistinctIds(const int64_t* all, int64_t n, int64_t padding) : where(n) {
    ps::IdIndex index;
    index.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      if (padding != kNoPadding && all[i] == padding) {
        where[i] = -1;
        continue;
      }
      bool added = false;
      where[i] = index.find_or_insert(all[i], ids.size(), &added);
      if (added) ids.push_back(all[i]);
    }
  }
};

// A push's step: its `step` attr, or (-1) the connection's current one.
int64_t step_of(const KernelContext& ctx, const PsConnectionRef& ps) {
  const int64_t step = ctx.attr<int64_t>("step");
  return step >= 0 ? step : ps.step();
}

void pull_sparse_kernel(KernelContext& ctx) {
  PsConnectionRef ps("ps_pull_sparse", ctx.attr<int64_t>("connection"));
  const std::string table = ctx.attr<std::string>("table");
  const int64_t dim = ctx.attr<int64_t>("dim");
  ps.check_width(table, dim, "per row");
  const Tensor& ids = ctx.in("Ids");
  Shape shape = ids.shape();
  shape.push_back(dim);
  Tensor* out = ctx.out("Out");
  out->resize(shape, DType::kF32);
  const DistinctIds distinct(ids.data<int64_t>(), ids.numel(), ctx.attr<int64_t>("padding_idx"));
  std::vector<float> rows(distinct.ids.size() * dim);
  if (distinct.ids.empty()) {
  } else if (ctx.attr<bool>("geo")) {
    ps.geo().get_rows(ps.client(), table, dim, distinct.ids.data(), distinct.ids.size(),
                      rows.data());
  } else {
    ps.client().pull_sparse(table, distinct.ids.data(), distinct.ids.size(), rows.data());
  }
  float* o = out->data<float>();
  for (size_t i = 0; i < distinct.where.size(); ++i) {
    float* row = o + i * dim;
    if (distinct.where[i] < 0) {
      std::memset(row, 0, dim * sizeof(float));
    } else {
      std::memcpy(row, rows.data() + distinct.where[i] * dim, dim * sizeof(float));
    }
  }
}

// Sums the gradient rows of each distinct id (the servers apply one update per id and
// push), leaving out padding, and pushes them for the current step; in geo mode applies
// them to the trainer's rows instead (SGD at LearningRate).
void push_sparse_kernel(KernelContext& ctx) {
  PsConnectionRef ps("ps_push_sparse", ctx.attr<int64_t>("connection"));
  const std::string table = ctx.attr<std::string>("table");
  const int64_t dim = ctx.attr<int64_t>("dim");
  ps.check_width(table, dim, "per row");
  const Tensor& ids = ctx.in("Ids");
  const Tensor& grad = ctx.in("Grad");
  SKIFF_CHECK(grad.numel() == ids.numel() * dim, "ps_push_sparse: table '", table, "': Grad ",
              grad.type_str(), " is not Ids ", ids.type_str(), " rows of ", dim);
  const DistinctIds distinct(ids.data<int64_t>(), ids.numel(), ctx.attr<int64_t>("padding_idx"));
  if (distinct.ids.empty()) return;
  std::vector<float> sums(distinct.ids.size() * dim, 0.f);
  const float* g = grad.data<float>();
  for (size_t i = 0; i < distinct.where.size(); ++i) {
    if (distinct.where[i] < 0) continue;
    float* sum = sums.data() + distinct.where[i] * dim;
    const float* row = g + i * dim;
    for (int64_t k = 0; k < dim; ++k) sum[k] += row[k];
  }
  if (ctx.attr<bool>("geo")) {
    const Tensor* lr = ctx.in_or_null("LearningRate");
    SKIFF_CHECK(lr && lr->numel() == 1 && lr->dtype() == DType::kF32, "ps_push_sparse: table '",
                table,
                "': geo mode trains the trainer's rows and needs a float32 LearningRate "
                "of one element, got ",
                lr ? lr->type_str() : std::string("none"));
    ps.geo().add_rows(table, dim, distinct.ids.data(), distinct.ids.size(), sums.data(),
                      -*lr->data<float>());
    return;
  }
  ps.client().push_sparse(table, distinct.ids.data(), distinct.ids.size(), sums.data(),
                          step_of(ctx, ps));
}

// The tables attr of an op over dense parameters X (one table each), checked against
// X's count.
const std::vector<std::string>& dense_tables(const KernelContext& ctx, const char* op) {
  const auto& tables = ctx.attr_ref<std::vector<std::string>>("tables");
  SKIFF_CHECK(static_cast<int>(tables.size()) == ctx.in_count("X"), op, ": ", ctx.in_count("X"),
              " X and ", tables.size(), " tables");
  return tables;
}

// The dense parameters X of an op that writes them in place (Out = X), each checked
// against its table's width: the Out buffers, in X's order.
std::vector<float*> dense_in_place(KernelContext& ctx, const PsConnectionRef& ps,
                                   const std::vector<std::string>& tables) {
  std::vector<float*> out;
  for (int i = 0; i < ctx.in_count("X"); ++i) {
    const Tensor& x = ctx.in("X", i);
    ps.check_width(tables[i], x.numel(), "in all");
    Tensor* o = ctx.out("Out", i);
    if (o != &x) {
      o->resize(x.shape(), DType::kF32);
      std::memcpy(o->data<float>(), x.data<float>(), x.numel() * sizeof(float));
    }
    out.push_back(o->data<float>());
  }
  return out;
}

// Pulls every dense table of the op in one call per server, into X in place.
void pull_dense_kernel(KernelContext& ctx) {
  PsConnectionRef ps("ps_pull_dense", ctx.attr<int64_t>("connection"));
  const auto& tables = dense_tables(ctx, "ps_pull_dense");
  ps.client().pull_dense(tables, dense_in_place(ctx, ps, tables));
}

// Pushes the gradients X of every dense table of the op in one call per server.
void push_dense_kernel(KernelContext& ctx) {
  PsConnectionRef ps("ps_push_dense", ctx.attr<int64_t>("connection"));
  const auto& tables = dense_tables(ctx, "ps_push_dense");
  std::vector<const float*> grads;
  for (int i = 0; i < ctx.in_count("X"); ++i) {
    const Tensor& x = ctx.in("X", i);
    ps.check_width(tables[i], x.numel(), "in all");
    grads.push_back(x.data<float>());
  }
  ps.client().push_dense(tables, grads, step_of(ctx, ps));
}

void barrier_kernel(KernelContext& ctx) {
  PsConnectionRef ps("ps_barrier", ctx.attr<int64_t>("connection"));
  if (ctx.attr<std::string>("mode") == "sync") ps.client().barrier(ps.step());
  const int64_t ended = ps.end_step();
  if (Tensor* step = ctx.out("Step")) {
    step->resize(Shape{}, DType::kI64);
    *step->data<int64_t>() = ended;
  }
}

// Counts a step of the trainer's local training; at every k_steps-th, syncs (ps_geo.h):
// pushes the share of what the rows and the dense parameters X moved, pulls X (into Out,
// the same variables) and adds their carry.
void geo_step_kernel(KernelContext& ctx) {
  PsConnectionRef ps("ps_geo_step", ctx.attr<int64_t>("connection"));
  const auto& tables = dense_tables(ctx, "ps_geo_step");
  const std::vector<float*> values = dense_in_place(ctx, ps, tables);
  std::vector<PsGeo::Dense> dense;
  for (size_t i = 0; i < tables.size(); ++i)
    dense.push_back({tables[i], values[i], ctx.in("X", static_cast<int>(i)).numel()});
  PsGeo& geo = ps.geo();
  const int64_t step = ps.end_step();
  if (geo.count_step(ctx.attr<int64_t>("k_steps"))) geo.sync(ps.client(), dense, step, false);
  Tensor* t = ctx.out("Step");
  t->resize(Shape{}, DType::kI64);
  *t->data<int64_t>() = step;
}

const VarDesc& int64_ids(ShapeContext& ctx, const char* op) {
  const VarDesc& ids = ctx.in_var("Ids");
  SKIFF_CHECK(ids.dtype == DType::kI64, op, ": Ids ('", ids.name, "') must be int64, got ",
              dtype_name(ids.dtype), ids.shape);
  return ids;
}

// Checks the table attrs; returns dim.
int64_t table_dim(ShapeContext& ctx, const char* op) {
  SKIFF_CHECK(!ctx.attr<std::string>("table").empty(), op, ": the table attr is empty");
  const int64_t dim = ctx.attr<int64_t>("dim");
  SKIFF_CHECK(dim > 0, op, ": table '", ctx.attr<std::string>("table"),
              "': dim must be positive, got ", dim);
  return dim;
}

Shape rows_shape(const Shape& ids, int64_t dim) {
  Shape s = ids;
  s.push_back(dim);
  return s;
}

void infer_pull_sparse(ShapeContext& ctx) {
  const int64_t dim = table_dim(ctx, "ps_pull_sparse");
  ctx.set_output("Out", rows_shape(int64_ids(ctx, "ps_pull_sparse").shape, dim), DType::kF32);
}

void infer_push_sparse(ShapeContext& ctx) {
  const int64_t dim = table_dim(ctx, "ps_push_sparse");
  const Shape want = rows_shape(int64_ids(ctx, "ps_push_sparse").shape, dim);
  const VarDesc& grad = ctx.in_var("Grad");
  SKIFF_CHECK(grad.dtype == DType::kF32 && grad.kind == VarKind::kDenseTensor &&
                  shapes_compatible(grad.shape, want),
              "ps_push_sparse: table '", ctx.attr<std::string>("table"), "': Grad ('", grad.name,
              "') must be a float32 tensor of shape ", want, " (Ids' shape and dim), got ",
              dtype_name(grad.dtype), grad.shape, " ", var_kind_name(grad.kind));
  SKIFF_CHECK(!ctx.attr<bool>("geo") || ctx.has_input("LearningRate"), "ps_push_sparse: table '",
              ctx.attr<std::string>("table"),
              "': geo mode trains the trainer's rows and needs the LearningRate input");
}

// X (dense float32 parameters, one table each) written to Out (in a program, X itself).
void infer_dense_in_place(ShapeContext& ctx, const char* op) {
  const int n = ctx.in_count("X");
  const auto& tables = ctx.attr_ref<std::vector<std::string>>("tables");
  SKIFF_CHECK(static_cast<int>(tables.size()) == n && ctx.out_count("Out") == n, op, ": X has ", n,
              " parameters, Out ", ctx.out_count("Out"), " and tables ", tables.size(),
              "; each dense parameter needs its table and an output");
  for (int i = 0; i < n; ++i) {
    const VarDesc& x = ctx.in_var("X", i);
    SKIFF_CHECK(x.dtype == DType::kF32 && x.kind == VarKind::kDenseTensor, op, ": table '",
                tables[i], "': X ('", x.name, "') must be a dense float32 tensor, got ",
                dtype_name(x.dtype), x.shape, " ", var_kind_name(x.kind));
    ctx.set_output("Out", x.shape, DType::kF32, i);
  }
}

void infer_pull_dense(ShapeContext& ctx) { infer_dense_in_place(ctx, "ps_pull_dense"); }

void infer_push_dense(ShapeContext& ctx) {
  const auto& tables = ctx.attr_ref<std::vector<std::string>>("tables");
  SKIFF_CHECK(static_cast<int>(tables.size()) == ctx.in_count("X"), "ps_push_dense: X has ",
              ctx.in_count("X"), " gradients and tables ", tables.size());
  for (int i = 0; i < ctx.in_count("X"); ++i) {
    const VarDesc& x = ctx.in_var("X", i);
    SKIFF_CHECK(x.dtype == DType::kF32 && x.kind == VarKind::kDenseTensor, "ps_push_dense: table '",
                tables[i], "': X ('", x.name, "') must be a dense float32 tensor, got ",
                dtype_name(x.dtype), x.shape, " ", var_kind_name(x.kind));
  }
}

void infer_geo_step(ShapeContext& ctx) {
  infer_dense_in_place(ctx, "ps_geo_step");
  SKIFF_CHECK(ctx.attr<int64_t>("k_steps") > 0, "ps_geo_step: k_steps must be positive, got ",
              ctx.attr<int64_t>("k_steps"));
  ctx.set_output("Step", Shape{}, DType::kI64);
}

void infer_barrier(ShapeContext& ctx) {
  const std::string mode = ctx.attr<std::string>("mode");
  SKIFF_CHECK(mode == "sync" || mode == "async",
              "ps_barrier: mode must be 'sync' or 'async', got '", mode, "'");
  ctx.set_output("Step", Shape{}, DType::kI64);
}

void register_ps_ops(OpRegistry& r) {
  r.add("ps_pull_sparse")
      .doc(
          "Out[..., :] = the row of Ids[...] in the parameter servers' sparse table `table` "
          "(rows made on first use by the table's initializer); an id equal to padding_idx "
          "gives zeros. Each distinct id is pulled once. The embedding lookup of a "
          "parameter-server program; not differentiable (ps_push_sparse sends the rows' "
          "gradients).")
      .input("Ids", "int64 ids, any values, any shape")
      .output("Out", "float32, Ids' shape followed by dim")
      .required_attr("table", AttrType::kString, "the sparse table's name")
      .attr("connection", kProgramConnection,
            "which connection of this process (ps_connection.h): 0 a split program's")
      .required_attr("dim", AttrType::kInt, "floats per row (the table's dim)")
      .attr("padding_idx", int64_t{-1}, "id whose row is zeros and gets no gradient; -1: none")
      .attr("geo", false,
            "geo mode: the trainer's rows (pulled when first used since the last sync, plus "
            "their carry) instead of the servers'")
      .infer_shape(infer_pull_sparse)
      .kernel({DType::kF32}, pull_sparse_kernel);

  r.add("ps_push_sparse")
      .doc(
          "Sends the gradient rows of Ids to the sparse table `table` for the current step: "
          "the rows of repeated ids summed, padding_idx left out. The servers apply their "
          "optimizer (sync mode: the trainers' average, at the step's ps_barrier). Not "
          "differentiable.")
      .input("Ids", "the int64 ids of the lookup")
      .input("Grad", "float32 gradient of the lookup's Out: Ids' shape followed by dim")
      .optional_input("LearningRate", "geo mode: the float32 rate of the trainer's SGD")
      .required_attr("table", AttrType::kString, "the sparse table's name")
      .attr("connection", kProgramConnection,
            "which connection of this process (ps_connection.h): 0 a split program's")
      .attr("step", int64_t{-1}, "the step the gradient is for; -1: the connection's current one")
      .required_attr("dim", AttrType::kInt, "floats per row (the table's dim)")
      .attr("padding_idx", int64_t{-1}, "id that gets no gradient; -1: none")
      .attr("geo", false,
            "geo mode: rows -= LearningRate * gradient on the trainer's rows, sent at the "
            "next sync (ps_geo_step), instead of pushing")
      .infer_shape(infer_push_sparse)
      .kernel({DType::kF32}, push_sparse_kernel)
      .kernel_dtype_from("Grad");

  r.add("ps_pull_dense")
      .doc(
          "X = the values of the parameter servers' dense tables `tables` (parameters the "
          "servers update), written in place, every table of a server in one call. Not "
          "differentiable.")
      .inputs("X", "the dense parameters, float32, each its table's size")
      .outputs("Out", "X, written in place")
      .required_attr("tables", AttrType::kStrings, "the dense table of each X")
      .attr("connection", kProgramConnection,
            "which connection of this process (ps_connection.h): 0 a split program's")
      .infer_shape(infer_pull_dense)
      .kernel({DType::kF32}, pull_dense_kernel);

  r.add("ps_push_dense")
      .doc(
          "Sends X, dense parameters' gradients, to the dense tables `tables` for the current "
          "step, every table of a server in one call; the servers apply their optimizer "
          "(sync mode: the trainers' average, at the step's ps_barrier). Not "
          "differentiable.")
      .inputs("X", "float32 gradients, each its table's size in elements")
      .required_attr("tables", AttrType::kStrings, "the dense table of each X")
      .attr("connection", kProgramConnection,
            "which connection of this process (ps_connection.h): 0 a split program's")
      .attr("step", int64_t{-1}, "the step the gradients are for; -1: the connection's current one")
      .infer_shape(infer_push_dense)
      .kernel({DType::kF32}, push_dense_kernel)
      .kernel_dtype_from("X");

  r.add("ps_geo_step")
      .doc(
          "Ends a step of geo training (Paddle's GeoSGD): the trainer trains local copies "
          "(its dense parameters X, the rows its geo lookups use) and every k_steps steps "
          "sends the servers 1/trainers of how far each moved since it was pulled, pulls X "
          "back and keeps the rest of its move on top (its carry). Trainers never wait for "
          "one another. Not differentiable.")
      .inputs("X", "the dense parameters, float32, each its dense table's size")
      .outputs("Out", "X, written in place at a sync")
      .output("Step", "int64 scalar: the number of the step it ended")
      .required_attr("tables", AttrType::kStrings, "the dense table of each X")
      .required_attr("k_steps", AttrType::kInt, "steps between syncs")
      .attr("connection", kProgramConnection,
            "which connection of this process (ps_connection.h): 0 a split program's")
      .infer_shape(infer_geo_step)
      .kernel({DType::kF32, DType::kI64}, geo_step_kernel);

  r.add("ps_barrier")
      .doc(
          "Ends the current step of the parameter-server connection: in sync mode it returns "
          "once every trainer reached the step and its update is applied on every server; "
          "in async mode it does not wait. Either way the next pushes belong to the next "
          "step. Not differentiable.")
      .output("Step", "int64 scalar: the number of the step it ended")
      .attr("mode", std::string("sync"), "'sync' (wait for the step's update) or 'async'")
      .attr("connection", kProgramConnection,
            "which connection of this process (ps_connection.h): 0 a split program's")
      .infer_shape(infer_barrier)
      .kernel({DType::kI64}, barrier_kernel);
}

const OpRegistrar kPsOps(register_ps_ops);

}  // namespace

}  // namespace skiff
