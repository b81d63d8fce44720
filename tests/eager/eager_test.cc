// Eager mode: ops called on tensors run the registered kernels, and backward runs
// the grad ops their grad makers make, reaching the same gradients as the program
// path and as finite differences.
#include <gtest/gtest.h>

#include <cmath>

#include "skiff/eager/backward.h"
#include "skiff/eager/grad_node.h"
#include "skiff/eager/op_call.h"
#include "tests/testing/op_test.h"

namespace skiff::eager {
namespace {

TensorPtr leaf(Tensor value, bool wants_grad = true) {
  TensorPtr t = make_tensor(std::move(value));
  t->stop_gradient = !wants_grad;
  return t;
}

AttrMap attrs(std::initializer_list<std::pair<std::string, Attr>> items) {
  AttrMap m;
  for (const auto& [k, v] : items) m.set(k, v);
  return m;
}

TensorPtr call1(EagerOp& op, const SlotTensors& inputs) { return op.call(inputs)[0][0]; }

// loss = sum(tanh(x @ w)); returns the loss value.
double loss_of(const Tensor& x, const Tensor& w) {
  NoGradGuard no_grad;
  EagerOp matmul("matmul", {}), tanh_op("tanh", {}),
      sum("reduce_sum", attrs({{"reduce_all", true}}));
  TensorPtr y = call1(tanh_op, {{call1(matmul, {{make_tensor(x)}, {make_tensor(w)}})}});
  return call1(sum, {{y}})->dense().item<double>();
}

TEST(EagerTest, ForwardMatchesKernels) {
  EagerOp add("elementwise_add", {});
  TensorPtr x = make_tensor(Tensor::from_vector<float>({2}, {1, 2}));
  TensorPtr y = make_tensor(Tensor::from_vector<float>({2}, {10, 20}));
  TensorPtr z = call1(add, {{x}, {y}});
  EXPECT_EQ(z->dense().to_vector<float>(), (std::vector<float>{11, 22}));
  EXPECT_TRUE(z->stop_gradient);  // no input wanted a gradient: nothing recorded
  EXPECT_TRUE(z->is_leaf());
}

TEST(EagerTest, BackwardMatchesFiniteDifferences) {
  Tensor x0 = testing::random_tensor({3, 4}, DType::kF64, 1);
  Tensor w0 = testing::random_tensor({4, 5}, DType::kF64, 2);
  TensorPtr x = leaf(x0), w = leaf(w0);
  EagerOp matmul("matmul", {}), tanh_op("tanh", {}),
      sum("reduce_sum", attrs({{"reduce_all", true}}));
  TensorPtr loss = call1(sum, {{call1(tanh_op, {{call1(matmul, {{x}, {w}})}})}});
  run_backward({loss}, {}, false);
  ASSERT_TRUE(w->grad && x->grad);
  const double eps = 1e-6;
  for (int64_t i = 0; i < w0.numel(); ++i) {
    Tensor wp = w0.clone(), wm = w0.clone();
    wp.data<double>()[i] += eps;
    wm.data<double>()[i] -= eps;
    double numeric = (loss_of(x0, wp) - loss_of(x0, wm)) / (2 * eps);
    EXPECT_NEAR(w->grad->dense().data<double>()[i], numeric, 1e-6) << "w[" << i << "]";
  }
}

TEST(EagerTest, GradientsOfSharedInputsAccumulate) {
  // y = x * x + x: dy/dx = 2x + 1, reaching x through three uses.
  TensorPtr x = leaf(Tensor::from_vector<double>({3}, {1, 2, 3}));
  EagerOp mul("elementwise_mul", {}), add("elementwise_add", {});
  TensorPtr y = call1(add, {{call1(mul, {{x}, {x}})}, {x}});
  run_backward({y}, {}, false);
  EXPECT_EQ(x->grad->dense().to_vector<double>(), (std::vector<double>{3, 5, 7}));
  // A second backward over a new graph adds into the same grad, as in PyTorch.
  TensorPtr y2 = call1(mul, {{x}, {x}});
  run_backward({y2}, {}, false);
  EXPECT_EQ(x->grad->dense().to_vector<double>(), (std::vector<double>{5, 9, 13}));
}

TEST(EagerTest, GradReadyHookRunsOnceWithTheWholeGradient) {
  // y = x * x + x reaches x three times: the hook sees the sum, once per backward, and a
  // queued callback runs after every hook.
  TensorPtr x = leaf(Tensor::from_vector<double>({2}, {1, 2}));
  TensorPtr unused = leaf(Tensor::from_vector<double>({1}, {0}));
  std::vector<std::string> events;
  x->grad_ready_hooks[0] = [&](EagerTensor& t) {
    events.push_back("x " + std::to_string(t.grad->dense().to_vector<double>()[1]));
    queue_backward_callback([&] { events.push_back("end"); });
  };
  unused->grad_ready_hooks[0] = [&](EagerTensor&) { events.push_back("unused"); };
  EagerOp mul("elementwise_mul", {}), add("elementwise_add", {});
  TensorPtr y = call1(add, {{call1(mul, {{x}, {x}})}, {x}});
  run_backward({y}, {}, false);
  EXPECT_EQ(events, (std::vector<std::string>{"x 5.000000", "end"}));
}

TEST(EagerTest, GradClearedToZerosViewTakesTheNextGradient) {
  TensorPtr x = leaf(Tensor::from_vector<double>({3}, {1, 2, 3}));
  EagerOp mul("elementwise_mul", {}), scale("scale", attrs({{"scale", 2.0}}));
  run_backward({call1(mul, {{x}, {x}})}, {}, false);
  TensorPtr grad = x->grad;
  grad->value.set(Tensor::zeros_view({3}, DType::kF64));  // clear_grad(set_to_zero=True)
  EXPECT_EQ(grad->dense().to_vector<double>(), (std::vector<double>{0, 0, 0}));
  // An in-place op on the cleared grad writes its own copy, never the zero mapping.
  scale.call_into({{grad}}, {{grad}});
  EXPECT_FALSE(grad->dense().is_zeros_view());
  EXPECT_EQ(grad->dense().to_vector<double>(), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(Tensor::zeros_view({4}, DType::kF32).to_vector<float>(),
            (std::vector<float>{0, 0, 0, 0}));
  // Backward stores into a cleared grad (same object) instead of adding.
  grad->value.set(Tensor::zeros_view({3}, DType::kF64));
  run_backward({call1(mul, {{x}, {x}})}, {}, false);
  EXPECT_EQ(x->grad, grad);
  EXPECT_EQ(grad->dense().to_vector<double>(), (std::vector<double>{2, 4, 6}));
  run_backward({call1(mul, {{x}, {x}})}, {}, false);
  EXPECT_EQ(grad->dense().to_vector<double>(), (std::vector<double>{4, 8, 12}));
}

TEST(EagerTest, SecondBackwardNeedsRetainGraph) {
  TensorPtr x = leaf(Tensor::from_vector<double>({2}, {1, 2}));
  EagerOp tanh_op("tanh", {});
  TensorPtr y = call1(tanh_op, {{x}});
  run_backward({y}, {}, true);
  run_backward({y}, {}, false);  // kept by the first
  std::string why = testing::error_of([&] { run_backward({y}, {}, false); });
  EXPECT_NE(why.find("a second time"), std::string::npos) << why;
}

TEST(EagerTest, LongChainsAreFreedAndDifferentiatedAtAnyDepth) {
  // 200,000 recorded ops (recursive freeing overflowed the stack there): freeing the chain,
  // and walking it, must not recurse per op.
  constexpr int kOps = 200000;
  for (bool backward : {false, true}) {
    TensorPtr x = leaf(Tensor::from_vector<double>({1}, {0.5}));
    EagerOp add("scale", attrs({{"bias", 1.0}}));
    TensorPtr y = x;
    for (int i = 0; i < kOps; ++i) y = call1(add, {{y}});
    EXPECT_DOUBLE_EQ(y->dense().item<double>(), 0.5 + kOps);
    if (backward) {
      run_backward({y}, {}, false);
      EXPECT_DOUBLE_EQ(x->grad->dense().item<double>(), 1.0);
    }
    y.reset();  // the whole chain goes here
  }
}

TEST(EagerTest, NoGradRecordsNothing) {
  TensorPtr x = leaf(Tensor::from_vector<double>({2}, {1, 2}));
  EagerOp tanh_op("tanh", {});
  NoGradGuard no_grad;
  TensorPtr y = call1(tanh_op, {{x}});
  EXPECT_TRUE(y->is_leaf());
  EXPECT_TRUE(y->stop_gradient);
}

TEST(EagerTest, ComputeGradsLeavesGradFieldsAlone) {
  TensorPtr x = leaf(Tensor::from_vector<double>({2}, {0.5, -1}));
  EagerOp tanh_op("tanh", {}), mul("elementwise_mul", {});
  TensorPtr h = call1(tanh_op, {{x}});
  TensorPtr y = call1(mul, {{h}, {h}});
  auto grads = compute_grads({y}, {x, h}, {}, false, false);
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_FALSE(x->grad);
  for (int i = 0; i < 2; ++i) {
    double hv = std::tanh(x->dense().data<double>()[i]);
    EXPECT_NEAR(grads[1]->dense().data<double>()[i], 2 * hv, 1e-12);
    EXPECT_NEAR(grads[0]->dense().data<double>()[i], 2 * hv * (1 - hv * hv), 1e-12);
  }
}

TEST(EagerTest, SparseEmbeddingGradientIsSelectedRows) {
  TensorPtr table = leaf(testing::random_tensor({10, 3}, DType::kF32, 3));
  TensorPtr ids = make_tensor(Tensor::from_vector<int64_t>({4}, {1, 7, 1, 2}));
  EagerOp lookup("embedding", attrs({{"is_sparse", true}}));
  EagerOp sum("reduce_sum", attrs({{"reduce_all", true}}));
  run_backward({call1(sum, {{call1(lookup, {{table}, {ids}})}})}, {}, false);
  ASSERT_TRUE(table->grad);
  const SelectedRows* rows = table->grad->value.selected_rows();
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(rows->height, 10);
}

TEST(EagerTest, CallIntoUpdatesInPlace) {
  TensorPtr p = make_tensor(Tensor::from_vector<float>({2}, {1, 2}));
  TensorPtr g = make_tensor(Tensor::from_vector<float>({2}, {10, 10}));
  TensorPtr lr = make_tensor(Tensor::from_vector<float>({1}, {0.5f}));
  EagerOp sgd("sgd", {});
  const OpSchema& s = sgd.info().schema;
  SlotTensors ins(s.inputs.size()), outs(s.outputs.size());
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (s.inputs[i].name == "Param") ins[i] = {p};
    if (s.inputs[i].name == "Grad") ins[i] = {g};
    if (s.inputs[i].name == "LearningRate") ins[i] = {lr};
  }
  for (size_t i = 0; i < s.outputs.size(); ++i)
    if (s.outputs[i].name == "ParamOut") outs[i] = {p};
  sgd.call_into(ins, outs);
  EXPECT_EQ(p->dense().to_vector<float>(), (std::vector<float>{-4, -3}));
}

TEST(EagerTest, InPlaceUpdateKeepsTheHistoryBeforeIt) {
  // h = 2x; h *= 3 in place; d(sum h)/dx = 6, and the in-place op saw h = 2x.
  TensorPtr x = leaf(Tensor::from_vector<double>({2}, {1, 2}));
  EagerOp twice("scale", attrs({{"scale", 2.0}})), thrice("scale", attrs({{"scale", 3.0}}));
  EagerOp sum("reduce_sum", attrs({{"reduce_all", true}}));
  TensorPtr h = call1(twice, {{x}});
  thrice.call_into({{h}}, {{h}});
  EXPECT_EQ(h->dense().to_vector<double>(), (std::vector<double>{6, 12}));
  run_backward({call1(sum, {{h}})}, {}, false);
  EXPECT_EQ(x->grad->dense().to_vector<double>(), (std::vector<double>{6, 6}));
  std::string why = testing::error_of([&] { thrice.call_into({{x}}, {{x}}); });
  EXPECT_NE(why.find("leaf tensor"), std::string::npos) << why;
}

TEST(EagerTest, WritingIntoATensorGivesItANewHistoryOnly) {
  // y = 2a; z = 3y; y = 5z written into y (not an input of that op): d sum(y^2)/da =
  // 2 * 30a * 30, and the record of z = 3y still reaches a through y's old history.
  TensorPtr a = leaf(Tensor::from_vector<double>({2}, {1, 2}));
  EagerOp twice("scale", attrs({{"scale", 2.0}})), thrice("scale", attrs({{"scale", 3.0}})),
      five("scale", attrs({{"scale", 5.0}})), mul("elementwise_mul", {});
  EagerOp sum("reduce_sum", attrs({{"reduce_all", true}}));
  TensorPtr y = call1(twice, {{a}});
  TensorPtr z = call1(thrice, {{y}});
  five.call_into({{z}}, {{y}});
  EXPECT_EQ(y->dense().to_vector<double>(), (std::vector<double>{30, 60}));
  run_backward({call1(sum, {{call1(mul, {{y}, {y}})}})}, {}, false);
  ASSERT_TRUE(a->grad);
  EXPECT_EQ(a->grad->dense().to_vector<double>(), (std::vector<double>{1800, 3600}));
}

TEST(EagerTest, ErrorsNameTheOpAndShapes) {
  EagerOp matmul("matmul", {});
  TensorPtr a = make_tensor(Tensor::zeros({2, 3}, DType::kF32));
  TensorPtr b = make_tensor(Tensor::zeros({4, 5}, DType::kF32));
  std::string why = testing::error_of([&] { matmul.call({{a}, {b}}); });
  EXPECT_NE(why.find("matmul"), std::string::npos) << why;
  EXPECT_NE(why.find("[2, 3]"), std::string::npos) << why;
  why = testing::error_of([&] { EagerOp bad("matmul", attrs({{"transpose_q", true}})); });
  EXPECT_NE(why.find("transpose_q"), std::string::npos) << why;
  why = testing::error_of([&] { matmul.call({{a}}); });
  EXPECT_NE(why.find("input slots"), std::string::npos) << why;
}

// A callback node standing for out0 = 3 * a, out1 = 2 * b: its backward scales the
// output gradients the same way.
struct ScaleCallback {
  int runs = 0;
  bool released = false;
  std::shared_ptr<GradCallback> make(int returned = 2) {
    auto cb = std::make_shared<GradCallback>();
    cb->label = "PyLayer 'Scale'";
    cb->run = [this, returned](const std::vector<Variable>& grads) {
      ++runs;
      EagerOp by3("scale", attrs({{"scale", 3.0}})), by2("scale", attrs({{"scale", 2.0}}));
      std::vector<Variable> out(static_cast<size_t>(returned));
      if (!grads[0].empty()) out[0] = call1(by3, {{make_tensor(grads[0])}})->value;
      if (returned > 1 && !grads[1].empty()) out[1] = call1(by2, {{make_tensor(grads[1])}})->value;
      return out;
    };
    cb->release = [this] { released = true; };
    return cb;
  }
};

TEST(EagerTest, CallbackNodeRunsInTheWalk) {
  TensorPtr x = leaf(Tensor::from_vector<double>({2}, {1, 2}));
  TensorPtr w = leaf(Tensor::from_vector<double>({2}, {0.5, -0.25}));
  EagerOp tanh_op("tanh", {}), add("elementwise_add", {}),
      sum("reduce_sum", attrs({{"reduce_all", true}})), by3("scale", attrs({{"scale", 3.0}})),
      by2("scale", attrs({{"scale", 2.0}}));
  TensorPtr t = call1(tanh_op, {{w}});
  TensorPtr o0, o1;
  {
    NoGradGuard no_grad;
    o0 = call1(by3, {{x}});
    o1 = call1(by2, {{t}});
  }
  ScaleCallback scale;
  record_callback_node({x, t}, {o0, o1}, scale.make());
  EXPECT_FALSE(o0->stop_gradient);
  EXPECT_EQ(o1->out_index, 1);
  // x feeds the node twice over: directly and through the second use of o0.
  TensorPtr loss = call1(sum, {{call1(add, {{call1(add, {{o0}, {o1}})}, {o0}})}});
  std::vector<TensorPtr> g = compute_grads({loss}, {x, w}, {}, true, false);
  EXPECT_EQ(g[0]->dense().to_vector<double>(), (std::vector<double>{6, 6}));
  run_backward({loss}, {}, false);
  EXPECT_EQ(scale.runs, 2);
  EXPECT_TRUE(scale.released);
  EXPECT_EQ(x->grad->dense().to_vector<double>(), (std::vector<double>{6, 6}));
  for (int i = 0; i < 2; ++i) {
    double th = std::tanh(w->dense().data<double>()[i]);
    EXPECT_NEAR(w->grad->dense().data<double>()[i], 2 * (1 - th * th), 1e-12);
    EXPECT_NEAR(g[1]->dense().data<double>()[i], 2 * (1 - th * th), 1e-12);
  }
  std::string again = testing::error_of([&] { run_backward({o0}, {}, false); });
  EXPECT_NE(again.find("PyLayer 'Scale' a second time"), std::string::npos) << again;
}

TEST(EagerTest, CallbackNodeErrorsNameIt) {
  TensorPtr x = leaf(Tensor::from_vector<double>({2}, {1, 2}));
  TensorPtr y = leaf(Tensor::from_vector<double>({2}, {3, 4}));
  EagerOp sum("reduce_sum", attrs({{"reduce_all", true}}));
  ScaleCallback scale;
  TensorPtr o0 = make_tensor(x->dense().clone()), o1 = make_tensor(y->dense().clone());
  record_callback_node({x, y}, {o0, o1}, scale.make(1));
  std::string err = testing::error_of([&] { run_backward({call1(sum, {{o0}})}, {}, false); });
  EXPECT_NE(err.find("backward of PyLayer 'Scale': returned 1 gradients for 2 inputs"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace skiff::eager
