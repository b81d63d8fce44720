"""skiff.seed: restarts the process-wide generator that random ops draw from (those
called with seed 0, the default), so a script repeats its draws after skiff.seed(n)."""
from .. import _C


def seed(s):
    """Restarts the generator of skiff's random ops (and returns ``s``)."""
    _C.set_global_seed(int(s))
    return s


manual_seed = seed
