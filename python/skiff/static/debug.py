"""Print(x): shows a variable's value each time the program runs, and its gradient
when the backward pass reaches it (the C++ print op and its grad op)."""
import itertools

from .. import _C
from .. import _C_ops

__all__ = ["Print"]

_print_ids = itertools.count(1)  # one per Print call: the op's first_n count


def Print(input, first_n=-1, message=None, summarize=20, print_tensor_name=True,
          print_tensor_type=True, print_tensor_shape=True, print_tensor_layout=True,
          print_tensor_lod=True, print_phase="both"):
    """Returns ``input`` unchanged, printing it (name, shape, dtype, the first
    ``summarize`` values; -1 for all) after ``message`` when the op runs; with
    print_phase 'backward' or 'both' its gradient is printed too; with ``first_n`` >= 0
    only the first ``first_n`` runs print (the value and the gradient counted apart)."""
    if int(first_n) < -1:
        raise _C.Error(f"Print: first_n must be -1 (every run) or >= 0, got {first_n}")
    phase = str(print_phase).lower()
    return _C_ops.print(input, message=message or "", summarize=int(summarize),
                        print_tensor_name=bool(print_tensor_name),
                        print_tensor_type=bool(print_tensor_type),
                        print_tensor_shape=bool(print_tensor_shape), print_phase=phase,
                        first_n=int(first_n), print_id=next(_print_ids))
