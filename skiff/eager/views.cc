#include "skiff/eager/views.h"

#include <algorithm>

namespace skiff::eager {

namespace {

// A dense value of `like`'s dtype and count, or nullptr.
const Tensor* same_elements(const EagerTensor& t, const Tensor& like) {
  const Tensor* d = t.value.tensor();
  if (!d || !d->initialized()) return nullptr;
  return d->dtype() == like.dtype() && d->numel() == like.numel() ? d : nullptr;
}

bool is_member(const ViewGroup& group, const EagerTensor* t) {
  return std::find(group.members.begin(), group.members.end(), t) != group.members.end();
}

// `from`'s memory under `shape`.
Tensor reshaped(const Tensor& from, const Shape& shape) {
  Tensor t = from;
  t.reshape(shape);
  return t;
}

}  // namespace

void join_views(const TensorPtr& base, const TensorPtr& view) {
  const Tensor* b = base->value.tensor();
  if (!b || !b->initialized() || base == view || !same_elements(*view, *b)) return;
  if (view->views.group) leave_views(*view);
  if (!base->views.group || !is_member(*base->views.group, base.get())) {
    base->views.group = std::make_shared<ViewGroup>();
    base->views.group->members.push_back(base.get());
  }
  view->value.set(reshaped(*b, view->dense().shape()));
  view->views.group = base->views.group;
  base->views.group->members.push_back(view.get());
}

void publish_write(EagerTensor& written) {
  // A copy of a member (the tape's copy of an in-place op's input) is not one itself.
  if (!written.views.group || !is_member(*written.views.group, &written)) return;
  const Tensor* w = written.value.tensor();
  if (!w || !w->initialized()) return;
  for (EagerTensor* m : written.views.group->members) {
    if (m == &written) continue;
    const Tensor* d = same_elements(*m, *w);
    if (!d) {
      // The written tensor changed dtype or size: it is no longer a view of the others.
      leave_views(written);
      return;
    }
    if (!d->shares_storage(*w)) m->value.set(reshaped(*w, d->shape()));
  }
}

void leave_views(EagerTensor& t) {
  if (!t.views.group) return;
  auto& ms = t.views.group->members;
  ms.erase(std::remove(ms.begin(), ms.end(), &t), ms.end());
  t.views.group.reset();
}

}  // namespace skiff::eager
