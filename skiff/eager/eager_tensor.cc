#include "skiff/eager/eager_tensor.h"

#include "skiff/eager/grad_node.h"
#include "skiff/eager/views.h"

namespace skiff::eager {

namespace {
thread_local bool g_grad_enabled = true;
}  // namespace

EagerTensor::~EagerTensor() {
  leave_views(*this);
  release_later(std::move(grad_node));
}

std::string EagerTensor::describe() const {
  const Tensor* t = value.tensor();
  std::string type = t && t->initialized() ? t->type_str() + " " : "";
  return name.empty() ? "an unnamed " + type + "tensor" : "tensor '" + name + "'";
}

const Tensor& EagerTensor::dense() const {
  const Tensor* t = value.tensor();
  SKIFF_CHECK(t && t->initialized(), describe(), " holds no dense value");
  return *t;
}

Tensor& EagerTensor::mutable_dense() {
  SKIFF_CHECK(value.is_tensor(), describe(), " holds no dense value");
  return *value.mutable_tensor();
}

TensorPtr make_tensor(Tensor value) {
  auto t = std::make_shared<EagerTensor>();
  t->value.set(std::move(value));
  return t;
}

TensorPtr make_tensor(Variable value) {
  auto t = std::make_shared<EagerTensor>();
  t->value = std::move(value);
  return t;
}

int add_grad_hook(EagerTensor& t, GradHook hook) {
  static int next_id = 0;
  int id = next_id++;
  if (t.grad_node) {
    t.grad_node->output_hooks[t.grad_node->flat_output(t.out_slot, t.out_index)][id] =
        std::move(hook);
  } else {
    t.grad_hooks[id] = std::move(hook);
  }
  return id;
}

void remove_grad_hook(EagerTensor& t, int id) {
  t.grad_hooks.erase(id);
  if (!t.grad_node) return;
  for (auto& [flat, hooks] : t.grad_node->output_hooks) hooks.erase(id);
}

bool grad_enabled() { return g_grad_enabled; }
void set_grad_enabled(bool on) { g_grad_enabled = on; }

}  // namespace skiff::eager
