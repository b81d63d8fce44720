#include "skiff/passes/int8.h"

#include <algorithm>
#include <map>
#include <set>

#include "skiff/ops/registry.h"

namespace skiff {

namespace {

std::string at(const OpDesc& op) {
  const std::string s = op.source();
  return s.empty() ? "" : " (at " + s + ")";
}

// The int8 form of a float op, as its registration declares it (OpInfo::int8_form).
const Int8Form* form_of(const std::string& type) {
  const OpInfo* info = OpRegistry::global().find(type);
  return info && info->int8_form ? &*info->int8_form : nullptr;
}

class Int8Converter {
 public:
  Int8Converter(Program* program, Int8Report* report) : p_(*program), report_(*report) {
    for (const Block& block : p_.blocks()) {
      for (const OpDesc& op : block.ops) {
        for (const std::string& n : op.input_names()) ++reads_[n];
      }
    }
    for (const std::string& n : p_.fetch_names) ++reads_[n];  // a fetch is a reader too
  }

  void run() {
    for (int b = 0; b < p_.num_blocks(); ++b) {
      Block& block = p_.block(b);
      for (size_t i = 0; i < block.ops.size(); ++i) {
        if (const Int8Form* f = form_of(block.ops[i].type)) convert_at(b, i, *f);
      }
      drop(b);
      for (size_t i = 0; i < block.ops.size(); ++i) requantize_at(b, i);
      drop(b);
    }
    for (const Block& block : p_.blocks()) {
      for (const OpDesc& op : block.ops) {
        if (op.type != "fake_quantize_dequantize") continue;
        const std::string& out = op.first_output("Out");
        report_.left_float.push_back(
            str_cat("op '", op.type, "'", at(op), " of '", op.first_input("X"), "': ",
                    why_[out].empty() ? "its reader is not a matmul or conv2d of int8 weights"
                                      : why_[out]));
      }
    }
  }

 private:
  void drop(int b) {
    Block& block = p_.block(b);
    std::vector<OpDesc> kept;
    for (size_t i = 0; i < block.ops.size(); ++i)
      if (!dropped_.count({b, i})) kept.push_back(std::move(block.ops[i]));
    block.ops = std::move(kept);
    dropped_.clear();
  }
  int reads(const std::string& n) const {
    auto it = reads_.find(n);
    return it == reads_.end() ? 0 : it->second;
  }
  // The index of the op of `block` before `before` writing `var`, or -1.
  int writer(const Block& block, size_t before, const std::string& var) const {
    for (size_t j = before; j-- > 0;)
      for (const std::string& n : block.ops[j].output_names())
        if (n == var) return static_cast<int>(j);
    return -1;
  }
  // The first op after `from` reading `var`, or -1.
  int reader(const Block& block, size_t from, const std::string& var) const {
    for (size_t j = from + 1; j < block.ops.size(); ++j)
      for (const std::string& n : block.ops[j].input_names())
        if (n == var) return static_cast<int>(j);
    return -1;
  }
  VarDesc* find_declared(int b, const std::string& n) {
    for (int blk = b; blk >= 0; blk = p_.block(blk).parent_idx) {
      auto it = p_.block(blk).vars.find(n);
      if (it != p_.block(blk).vars.end()) return &it->second;
    }
    return nullptr;
  }
  // Not persistable, not fetched, and read by one op only.
  bool internal(int b, const std::string& n) const {
    const VarDesc* v = p_.find_var(b, n);
    return v && !v->persistable && reads(n) == 1;
  }
  // A one-element float32 scale (declared shape known).
  bool one_value(int b, const std::string& n) const {
    const VarDesc* v = p_.find_var(b, n);
    return v && v->dtype == DType::kF32 && v->shape.known() && v->shape.numel() == 1;
  }
  // The int8 grid with one scale, no zero point, ties to even: what the int8 ops take.
  bool int8_grid(int b, const OpDesc& q) const {
    const bool range = q.type == "quantize_linear" ? q.attr<std::string>("out_dtype") == "int8"
                                                   : q.attr<int64_t>("quant_min") == -128 &&
                                                         q.attr<int64_t>("quant_max") == 127;
    return range && q.attr_or<int64_t>("round_type", 0) == 0 &&
           q.first_input("ZeroPoint").empty() && one_value(b, q.first_input("Scale"));
  }

  // Why the float op at i cannot take its int8 form, or "" when it can.
  std::string refusal(int b, const OpDesc& op, const Int8Form& f, const OpDesc& dq) const {
    const VarDesc* w = p_.find_var(b, dq.first_input("X"));
    const VarDesc* ws = p_.find_var(b, dq.first_input("Scale"));
    const bool per_channel = ws && ws->shape.known() && ws->shape.numel() > 1;
    if (!w || w->dtype != DType::kI8 || w->shape.rank() != f.w_rank || !ws ||
        ws->dtype != DType::kF32 || !ws->shape.known() || !dq.first_input("ZeroPoint").empty() ||
        (per_channel && (dq.attr_or<int64_t>("quant_axis", 0) != f.w_axis ||
                         ws->shape.numel() != w->shape[f.w_axis])))
      return str_cat("the ", op.type, "'s weights are not int8 of rank ", f.w_rank,
                     " with one scale or one per output channel (axis ", f.w_axis, ")");
    if (op.type == "matmul" &&
        (op.attr_or<bool>("trans_x", false) || op.attr_or<bool>("trans_y", false)))
      return "the matmul transposes an operand";
    if (op.type == "conv2d" && op.attr_or<std::string>("data_format", "NCHW") != "NCHW")
      return "the conv2d is not NCHW";
    return "";
  }

  void convert_at(int b, size_t i, const Int8Form& f) {
    Block& block = p_.block(b);
    const OpDesc op = block.ops[i];
    const std::string xf = op.first_input(f.x), wf = op.first_input(f.w);
    const int a = writer(block, i, xf), d = writer(block, i, wf);
    if (a < 0 || block.ops[a].type != "fake_quantize_dequantize") return;
    std::string& why = why_[xf];
    const OpDesc& fq = block.ops[a];
    if (d < 0 || block.ops[d].type != "dequantize_linear") {
      why = str_cat("the ", op.type, "'s weights are not dequantized int8");
      return;
    }
    const OpDesc& dq = block.ops[d];
    why = refusal(b, op, f, dq);
    if (!why.empty()) return;
    if (!int8_grid(b, fq)) {
      why = "not the int8 grid with one scale and no zero point";
      return;
    }
    if (!internal(b, xf) || !internal(b, wf)) {
      why = "its result is read elsewhere too";
      return;
    }
    // The input on its grid, as int8, where the fake quantization was.
    const std::string xq = xf + ".int8";
    VarDesc q(xq, DType::kI8, p_.find_var(b, xf)->shape);
    q.stop_gradient = true;
    block.add_var(q);
    OpDesc quantize("quantize_linear");
    if (const Attr* src = fq.attrs.find(kSourceAttr)) quantize.set_attr(kSourceAttr, *src);
    quantize.set_input("X", fq.input("X"))
        .set_input("Scale", fq.input("Scale"))
        .set_output("Y", {xq})
        .set_attr("out_dtype", std::string("int8"));
    const std::string x_scale = fq.first_input("Scale");
    block.ops[a] = quantize;
    dropped_.insert({b, static_cast<size_t>(d)});

    OpDesc int8(f.int8_op);
    if (const Attr* src = op.attrs.find(kSourceAttr)) int8.set_attr(kSourceAttr, *src);
    int8.set_input(f.int8_x, {xq})
        .set_input(f.int8_w, dq.input("X"))
        .set_input(f.x_scale, {x_scale})
        .set_input(f.w_scale, dq.input("Scale"));
    bool relu = op.attr_or<bool>("fuse_relu", false);
    if (op.type == "conv2d") {
      for (const char* name : {"strides", "paddings", "dilations"})
        int8.set_attr(name, op.attr<std::vector<int64_t>>(name));
      int8.set_attr("groups", op.attr<int64_t>("groups"));
      if (!op.first_input("Bias").empty()) int8.set_input("Bias", op.input("Bias"));
    }
    std::string out = op.first_output(f.out);
    size_t last = i;
    if (op.type == "matmul")
      fuse_bias(b, p_.find_var(b, dq.first_input("X"))->shape[1], &int8, &out, &last);
    if (!relu) relu = fuse_relu(b, &out, &last);
    int8.set_output(f.int8_out, {out}).set_attr("fuse_relu", relu);
    block.ops[last] = int8;
    if (last != i) dropped_.insert({b, i});
    // int8 compute has no gradient: what it reads is not trained through it.
    for (const std::string& n : int8.input_names())
      if (VarDesc* v = find_declared(b, n)) v->stop_gradient = true;
    ++report_.converted;
  }

  // Takes the bias add (a float32 [N] Y) after the matmul whose result is `*out` (written
  // at `*last`) into `int8`.
  void fuse_bias(int b, int64_t n, OpDesc* int8, std::string* out, size_t* last) {
    const Block& block = p_.block(b);
    if (!internal(b, *out)) return;
    const int add_at = reader(block, *last, *out);
    if (add_at < 0) return;
    const OpDesc& add = block.ops[add_at];
    const VarDesc* bias = p_.find_var(b, add.first_input("Y"));
    if (add.type != "elementwise_add" || add.first_input("X") != *out || !bias ||
        bias->dtype != DType::kF32 || bias->shape != Shape{n} ||
        add.attr_or<int64_t>("axis", -1) != -1)
      return;
    int8->set_input("Bias", add.input("Y"));
    dropped_.insert({b, *last});
    *out = add.first_output("Out");
    *last = static_cast<size_t>(add_at);
  }

  // Takes a relu reading `*out` (its only reader) into the int8 op; true when it did.
  bool fuse_relu(int b, std::string* out, size_t* last) {
    const Block& block = p_.block(b);
    if (!internal(b, *out)) return false;
    const int relu_at = reader(block, *last, *out);
    if (relu_at < 0 || block.ops[relu_at].type != "relu") return false;
    dropped_.insert({b, *last});
    *out = block.ops[relu_at].first_output("Out");
    *last = static_cast<size_t>(relu_at);
    return true;
  }

  // Ops that give the same values whether their input is quantized before or after them:
  // max pooling (rounding and clamping keep order) and the ops that only move values
  // (OpInfo::moves_values).
  static bool commutes_with_quantize(const OpDesc& op) {
    if (op.type == "pool2d") return op.attr<std::string>("pooling_type") == "max";
    const OpInfo* info = OpRegistry::global().find(op.type);
    return info && info->moves_values;
  }

  // An int8 op whose float result, maybe through max pooling and reshapes, feeds only the
  // next int8 layer's quantize_linear gives int8 on that grid itself (OutScale), and the
  // ops between run on int8: the same integers, without the float tensors.
  void requantize_at(int b, size_t i) {
    Block& block = p_.block(b);
    if (block.ops[i].type != "quantized_matmul" && block.ops[i].type != "quantized_conv2d") return;
    const char* slot = block.ops[i].type == "quantized_matmul" ? "Out" : "Output";
    std::vector<size_t> between;
    std::string value = block.ops[i].first_output(slot);
    size_t at = i;
    int q = -1;
    while (q < 0) {
      if (!internal(b, value)) return;
      const int r = reader(block, at, value);
      if (r < 0 || block.ops[r].first_input("X") != value) return;
      const OpDesc& op = block.ops[r];
      if (op.type == "quantize_linear") {
        if (!int8_grid(b, op)) return;
        q = r;
      } else if (commutes_with_quantize(op)) {
        between.push_back(static_cast<size_t>(r));
        value = op.first_output("Out");
        at = static_cast<size_t>(r);
      } else {
        return;
      }
    }
    const OpDesc& quantize = block.ops[q];
    OpDesc& op = block.ops[i];
    op.set_input("OutScale", quantize.input("Scale"));
    for (size_t k : between) drop_unread_mask(&block.ops[k]);
    // A 2x2 max pooling right after a convolution pools its sums (fuse_max_pool_2x2).
    if (op.type == "quantized_conv2d" && !between.empty() &&
        fusable_max_pool(block.ops[between[0]])) {
      op.set_attr("fuse_max_pool_2x2", true);
      op.set_output(slot, {block.ops[between[0]].first_output("Out")});
      dropped_.insert({b, between[0]});
      between.erase(between.begin());
    }
    // The values from op to the quantize's reader are int8 now; the last takes its name.
    const std::string& y = quantize.first_output("Y");
    if (between.empty()) {
      op.set_output(slot, {y});
    } else {
      if (VarDesc* v = find_declared(b, op.first_output(slot))) v->dtype = DType::kI8;
      for (size_t k = 0; k + 1 < between.size(); ++k)
        if (VarDesc* v = find_declared(b, block.ops[between[k]].first_output("Out")))
          v->dtype = DType::kI8;
      block.ops[between.back()].set_output("Out", {y});
    }
    dropped_.insert({b, static_cast<size_t>(q)});
    ++report_.requantized;
  }

  // pool2d of 2x2 windows at stride 2 inside the planes, taking the maximum, no Mask.
  static bool fusable_max_pool(const OpDesc& op) {
    using Ints = std::vector<int64_t>;
    const Ints two{2, 2};
    const Ints paddings = op.attr_or<Ints>("paddings", Ints{0, 0});
    return op.type == "pool2d" && op.attr_or<std::string>("pooling_type", "max") == "max" &&
           op.attr_or<Ints>("ksize", Ints{}) == two && op.attr_or<Ints>("strides", Ints{}) == two &&
           std::all_of(paddings.begin(), paddings.end(), [](int64_t v) { return v == 0; }) &&
           !op.attr_or<bool>("global_pooling", false) && !op.attr_or<bool>("adaptive", false) &&
           !op.attr_or<bool>("ceil_mode", false) && op.first_output("Mask").empty();
  }

  // A max pooling's argmax indices (Mask) when nothing reads them: a saved program's
  // pool2d still names the Mask its training gradient would have read, and int8 maxima
  // alone take the vectorised loops.
  void drop_unread_mask(OpDesc* op) const {
    const std::string mask = op->first_output("Mask");
    if (op->type != "pool2d" || mask.empty() || reads(mask) > 0) return;
    std::vector<Slot>& outs = op->outputs;
    outs.erase(std::remove_if(outs.begin(), outs.end(),
                              [](const Slot& slot) { return slot.first == "Mask"; }),
               outs.end());
  }

  Program& p_;
  Int8Report& report_;
  std::map<std::string, int> reads_;
  std::set<std::pair<int, size_t>> dropped_;
  std::map<std::string, std::string> why_;  // by fake-quantized output: why it stayed
};

}  // namespace

Program convert_to_int8(const Program& program, Int8Report* report) {
  Program out = program;
  Int8Report ignored;
  Int8Converter(&out, report ? report : &ignored).run();
  return out;
}

}  // namespace skiff
