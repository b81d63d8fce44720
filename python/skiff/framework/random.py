"""skiff.seed: restarts the process-wide generator that random ops draw from (those
called with seed 0, the default), so a script repeats its draws after skiff.seed(n);
get_rng_state / set_rng_state save and restore its point (Paddle's names)."""
from .. import _C


def seed(s):
    """Restarts the generator of skiff's random ops (and returns ``s``); any integer, taken
    modulo 2**64 (as torch.manual_seed takes negative seeds)."""
    if isinstance(s, bool) or not hasattr(s, "__index__"):
        raise TypeError(f"seed: the seed must be an integer, got {type(s).__name__}")
    _C.set_global_seed(s.__index__() % 2 ** 64)
    return s


manual_seed = seed


class GeneratorState:
    """A saved point of the process-wide generator (its engine's state)."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = str(state)

    def __repr__(self):
        return f"GeneratorState({len(self.state.split())} words)"

    def __eq__(self, other):
        return isinstance(other, GeneratorState) and other.state == self.state

    def __hash__(self):
        return hash(self.state)


def _check_device(fn, device):
    if device is not None and str(device).lower() != "cpu":
        raise ValueError(f"{fn}: device must be None or 'cpu' (skiff runs on the CPU), "
                         f"got {device!r}")


def get_rng_state(device=None):
    """[GeneratorState]: the generator's current point; set_rng_state(it) returns there."""
    _check_device("get_rng_state", device)
    return [GeneratorState(_C.global_generator_state())]


def set_rng_state(state_list, device=None):
    """Returns the generator to a point get_rng_state saved (a list of one state)."""
    _check_device("set_rng_state", device)
    states = list(state_list) if isinstance(state_list, (list, tuple)) else None
    if not states or not isinstance(states[0], GeneratorState):
        raise TypeError("set_rng_state: state_list must be the list get_rng_state returned, "
                        f"got {state_list!r}")
    _C.set_global_generator_state(states[0].state)


def get_cuda_rng_state():
    """[]: skiff has no CUDA generators (as a CPU-only Paddle build)."""
    return []


def set_cuda_rng_state(state_list):
    """Does nothing: skiff has no CUDA generators (as a CPU-only Paddle build)."""
    if not isinstance(state_list, (list, tuple)):
        raise TypeError(f"set_cuda_rng_state: state_list must be a list, got {state_list!r}")
