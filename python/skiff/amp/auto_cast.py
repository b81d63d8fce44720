"""auto_cast: inside it, at level O1, ops of the white list (matmul, conv2d) run on
bfloat16 inputs with float32 accumulation and return float32 (Paddle returns bfloat16;
skiff's other kernels mostly lack bfloat16, so the result comes back as float32); every
other op is unchanged. At level O2 (with decorate's bfloat16 parameters) every op that has
a bfloat16 kernel and is not in the black list runs on bfloat16 inputs and gives bfloat16;
the others (losses, reductions, normalizations: ops without bfloat16 kernels) run on their
inputs widened to float32. It is a hook of the dispatch point (``framework.core.hooked``),
which sees every op call while it is installed and costs one check when none is."""
import contextlib
import warnings

from .. import _C
from ..framework import core
from ..framework import dtype as dt

__all__ = ["auto_cast", "autocast", "amp_guard", "is_autocast_enabled", "get_autocast_dtype",
           "white_list", "black_list"]

# Paddle's op names map to skiff's where they differ.
_ALIASES = {"matmul_v2": "matmul", "mul": "matmul", "conv2d_fusion": "conv2d"}
# The default lists are the ops' AMP policies, registered with each op (_C.op_traits():
# 'low_precision' ops run in bfloat16, 'float32' ones stay in float32, the others follow
# their inputs).
_POLICIES = {type: traits["amp"] for type, traits in _C.op_traits().items()}
_WHITE = {type for type, policy in _POLICIES.items() if policy == "low_precision"}
_BLACK = {type for type, policy in _POLICIES.items() if policy == "float32"}


def white_list():
    """The ops auto_cast runs in bfloat16 by default (as {dtype: {level: set}})."""
    return {"bfloat16": {"OD": set(_WHITE), "O1": set(_WHITE), "O2": set(_WHITE)}}


def black_list():
    """The ops auto_cast keeps in float32 by default (as {dtype: {level: set}})."""
    return {"bfloat16": {"OD": set(_BLACK), "O1": set(_BLACK), "O2": set(_BLACK)}}


class _State:
    """The active auto_cast: its level, the white list (O1: the ops run in bfloat16) and
    the black list (O2: the ops kept in float32)."""

    def __init__(self, level, white, black):
        self.level, self.white, self.black = level, white, black


_BF16_KERNELS = {}  # op type -> whether it has a bfloat16 kernel


def _has_bfloat16_kernel(type):
    known = _BF16_KERNELS.get(type)
    if known is None:
        known = _BF16_KERNELS[type] = "bfloat16" in _C.op_schema(type)["dtypes"]
    return known


_state = None


def is_autocast_enabled():
    """Whether an enabled auto_cast is active."""
    return _state is not None


def get_autocast_dtype():
    """The dtype auto_cast casts to (bfloat16 while one is active, else float32)."""
    return dt.bfloat16 if _state is not None else dt.float32


def _cast(x, name):
    return core.run_unhooked("cast", (x,), {"out_dtype": name})


def _to(x, src, name):
    if isinstance(x, (list, tuple)):
        return [_to(v, src, name) for v in x]
    if x is not None and getattr(x, "dtype", None) == src:
        return _cast(x, name)
    return x


_run = core.run_unhooked


def _hook_o2(type, inputs, attrs, output_counts, out):
    """Runs an op with a bfloat16 kernel on bfloat16 inputs, any other on float32 ones."""
    if out is not None or type == "cast":
        return _run(type, inputs, attrs, output_counts, out)
    if type in _state.black or not _has_bfloat16_kernel(type):
        inputs = tuple(_to(x, dt.bfloat16, "float32") for x in inputs)
    else:
        inputs = tuple(_to(x, dt.float32, "bfloat16") for x in inputs)
    return _run(type, inputs, attrs, output_counts, None)


def _hook(type, inputs, attrs, output_counts, out):
    """Runs a white-list op on bfloat16 inputs with float32 outputs; others unchanged."""
    if _state is None:  # a disabled auto_cast inside an enabled one
        return _run(type, inputs, attrs, output_counts, out)
    if _state.level == "O2":
        return _hook_o2(type, inputs, attrs, output_counts, out)
    if type not in _state.white or out is not None:
        return _run(type, inputs, attrs, output_counts, out)
    inputs = tuple(_to(x, dt.float32, "bfloat16") for x in inputs)
    if type == "matmul":
        return _run(type, inputs, dict(attrs or {}, out_dtype="float32"), output_counts, None)
    result = _run(type, inputs, attrs, output_counts, None)
    if isinstance(result, tuple):
        return tuple(_to(r, dt.bfloat16, "float32") for r in result)
    return _to(result, dt.bfloat16, "float32")


def _names(ops, arg):
    if ops is None:
        return set()
    if isinstance(ops, str) or not all(isinstance(o, str) for o in ops):
        raise TypeError(f"auto_cast: {arg} must be a list or set of op names, got {ops!r}")
    return {_ALIASES.get(o, o) for o in ops}


@contextlib.contextmanager
def auto_cast(enable=True, custom_white_list=None, custom_black_list=None, level="O1",
              dtype="float16", use_promote=True):
    """Within it, at level O1, white-list ops (matmul, conv2d and custom_white_list, less
    custom_black_list) run on bfloat16 inputs, other ops on float32; at level O2 every op
    with a bfloat16 kernel, less custom_black_list, runs on bfloat16 inputs and the others
    on float32 (use it with decorate(level='O2')). dtype='float16' (the default) needs an
    accelerator: on the CPU it has no effect but a warning, as in Paddle's CPU runs, and ops
    stay in float32; 'O0' disables casting."""
    global _state
    if level not in ("O0", "OD", "O1", "O2"):
        raise ValueError(f"auto_cast: level should be O0, OD, O1 or O2, got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"auto_cast: dtype should be 'float16' or 'bfloat16', got {dtype!r}")
    white = _names(custom_white_list, "custom_white_list")
    black = _names(custom_black_list, "custom_black_list")
    if white & black:
        raise ValueError(f"auto_cast: custom_white_list and custom_black_list overlap on "
                         f"{sorted(white & black)}")
    active = enable and level != "O0"
    if active and dtype == "float16":
        warnings.warn("auto_cast: float16 mixed precision needs an accelerator, and skiff runs "
                      "on the CPU, so auto_cast(dtype='float16') makes no effect (ops stay in "
                      "float32); use dtype='bfloat16' for mixed precision on the CPU",
                      UserWarning, stacklevel=3)
        active = False
    saved = _state
    _state = _State(level, (_WHITE | white) - black, (_BLACK | black) - white) if active \
        else None
    try:
        if active:
            with core.hooked(_hook):
                yield
        else:
            yield
    finally:
        _state = saved


autocast = auto_cast
amp_guard = auto_cast
