// Views in eager mode: tensors that show one memory under different shapes, as
// Paddle's reshape, flatten, squeeze, unsqueeze and detach do. A write into any member
// of a view group (an in-place op, set_value) shows in all of them.
//
//   auto y = EagerOp("reshape", {{"shape", Ints{6}}}).call({{x}})[0][0];  // joins x's group
//   EagerOp("scale", {...}).call_into({{y}}, {{y}});   // x now holds the scaled values too
//
// Memory stays copy-on-write underneath (core/tensor.h): a write into a shared storage
// gets new memory, and publish_write then points every other member at it. So values a
// recorded op saved for its gradient never change under it, and a value fetched earlier
// stays intact.
#pragma once

#include <memory>
#include <vector>

#include "skiff/eager/eager_tensor.h"

namespace skiff::eager {

// The tensors that are views of one memory; each holds it under its own shape. A
// member leaves in its destructor (tensors made from Python hold no lasting shared_ptr,
// so a weak_ptr to one would expire while it lives).
struct ViewGroup {
  std::vector<EagerTensor*> members;
};

// Makes `view` (whose value has `base`'s dtype and element count) a view of `base`:
// both join base's group and view holds base's memory under view's own shape. A value
// that is not a dense tensor, or differs in dtype or count, joins nothing.
void join_views(const TensorPtr& base, const TensorPtr& view);

// After `written`'s value was replaced or written: every other live member of its group
// holds the new memory under its own shape. A member whose dtype or element count no
// longer matches (an in-place cast) leaves the group.
void publish_write(EagerTensor& written);

// Takes `t` out of its group (its destructor calls this).
void leave_views(EagerTensor& t);

}  // namespace skiff::eager
