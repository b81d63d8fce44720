#include "skiff/passes/int8.h"

#include <map>
#include <set>

namespace skiff {

namespace {

std::string at(const OpDesc& op) {
  const std::string s = op.source();
  return s.empty() ? "" : " (at " + s + ")";
}

class Int8Converter {
 public:
  Int8Converter(Program* program, Int8Report* report) : p_(*program), report_(*report) {
    for (const Block& block : p_.blocks()) {
      for (const OpDesc& op : block.ops) {
        for (const std::string& n : op.input_names()) ++reads_[n];
      }
    }
  }

  void run() {
    for (int b = 0; b < p_.num_blocks(); ++b) {
      Block& block = p_.block(b);
      for (size_t i = 0; i < block.ops.size(); ++i) {
        if (block.ops[i].type == "matmul") convert_at(b, i);
      }
      std::vector<OpDesc> kept;
      for (size_t i = 0; i < block.ops.size(); ++i)
        if (!dropped_.count({b, i})) kept.push_back(std::move(block.ops[i]));
      block.ops = std::move(kept);
      dropped_.clear();
    }
    for (const Block& block : p_.blocks()) {
      for (const OpDesc& op : block.ops) {
        if (op.type != "fake_quantize_dequantize") continue;
        const std::string& out = op.first_output("Out");
        report_.left_float.push_back(str_cat(
            "op '", op.type, "'", at(op), " of '", op.first_input("X"),
            "': ", why_[out].empty() ? "its reader is not a matmul of int8 weights" : why_[out]));
      }
    }
  }

 private:
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
  bool internal(int b, const std::string& n) const {
    const VarDesc* v = p_.find_var(b, n);
    return v && !v->persistable && reads(n) == 1;
  }
  // A one-element scale (declared shape known).
  bool one_value(int b, const std::string& n) const {
    const VarDesc* v = p_.find_var(b, n);
    return v && v->dtype == DType::kF32 && v->shape.known() && v->shape.numel() == 1;
  }

  void convert_at(int b, size_t i) {
    Block& block = p_.block(b);
    const OpDesc mm = block.ops[i];
    const std::string xf = mm.first_input("X"), wf = mm.first_input("Y");
    const int a = writer(block, i, xf), d = writer(block, i, wf);
    if (a < 0 || block.ops[a].type != "fake_quantize_dequantize") return;
    std::string& why = why_[xf];
    const OpDesc& fq = block.ops[a];
    if (d < 0 || block.ops[d].type != "dequantize_linear") {
      why = "the matmul's weights are not dequantized int8";
      return;
    }
    const OpDesc& dq = block.ops[d];
    const VarDesc* w = p_.find_var(b, dq.first_input("X"));
    const VarDesc* wscale = p_.find_var(b, dq.first_input("Scale"));
    if (mm.attr_or<bool>("trans_x", false) || mm.attr_or<bool>("trans_y", false) || !w ||
        w->dtype != DType::kI8 || w->shape.rank() != 2 || !wscale || wscale->dtype != DType::kF32 ||
        !wscale->shape.known() ||
        !(wscale->shape.numel() == 1 ||
          (dq.attr_or<int64_t>("quant_axis", 0) == 1 && wscale->shape.numel() == w->shape[1])) ||
        !dq.first_input("ZeroPoint").empty()) {
      why = "the matmul's weights are not int8 [K, N] with one scale or one per column";
      return;
    }
    if (fq.attr<int64_t>("quant_min") != -128 || fq.attr<int64_t>("quant_max") != 127 ||
        fq.attr_or<int64_t>("round_type", 0) != 0 || !fq.first_input("ZeroPoint").empty() ||
        !one_value(b, fq.first_input("Scale"))) {
      why = "not the int8 grid with one scale and no zero point";
      return;
    }
    if (!internal(b, xf) || !internal(b, wf)) {
      why = "its result is read elsewhere too";
      return;
    }
    // The input on its grid, as int8, where the fake quantization was.
    const VarDesc* xf_desc = p_.find_var(b, xf);
    const std::string xq = xf + ".int8";
    VarDesc q(xq, DType::kI8, xf_desc->shape);
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

    OpDesc qmm("quantized_matmul");
    if (const Attr* src = mm.attrs.find(kSourceAttr)) qmm.set_attr(kSourceAttr, *src);
    qmm.set_input("X", {xq})
        .set_input("W", dq.input("X"))
        .set_input("XScale", {x_scale})
        .set_input("WScale", dq.input("Scale"));
    std::string out = mm.first_output("Out");
    size_t last = i;
    fuse_bias_relu(b, i, w->shape[1], &qmm, &out, &last);
    qmm.set_output("Out", {out}).set_attr("fuse_relu", qmm.attr_or<bool>("fuse_relu", false));
    block.ops[last] = qmm;
    if (last != i) dropped_.insert({b, i});
    // int8 compute has no gradient: what it reads is not trained through it.
    for (const std::string& n : qmm.input_names())
      if (VarDesc* v = find_declared(b, n)) v->stop_gradient = true;
    ++report_.converted;
  }

  // Takes the bias add (a float32 [N] Y) and relu after the matmul into `qmm` when each is
  // its input's only reader.
  void fuse_bias_relu(int b, size_t i, int64_t n, OpDesc* qmm, std::string* out, size_t* last) {
    const Block& block = p_.block(b);
    if (!internal(b, *out)) return;
    const int add_at = reader(block, i, *out);
    if (add_at < 0) return;
    const OpDesc& add = block.ops[add_at];
    const VarDesc* bias = p_.find_var(b, add.first_input("Y"));
    if (add.type != "elementwise_add" || add.first_input("X") != *out || !bias ||
        bias->dtype != DType::kF32 || bias->shape != Shape{n} ||
        add.attr_or<int64_t>("axis", -1) != -1)
      return;
    qmm->set_input("Bias", add.input("Y"));
    dropped_.insert({b, i});
    *out = add.first_output("Out");
    *last = static_cast<size_t>(add_at);
    if (!internal(b, *out)) return;
    const int relu_at = reader(block, add_at, *out);
    if (relu_at < 0 || block.ops[relu_at].type != "relu") return;
    qmm->set_attr("fuse_relu", true);
    dropped_.insert({b, static_cast<size_t>(add_at)});
    *out = block.ops[relu_at].first_output("Out");
    *last = static_cast<size_t>(relu_at);
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
