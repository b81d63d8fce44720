"""skiff.seed: the seed stream random ops draw from (each op call takes the next
seed, so a program of random ops repeats after skiff.seed(n))."""
import numpy as np

_state = {"rng": np.random.default_rng(0x5eed)}


def seed(s):
    """Restarts the seed stream of skiff's random ops (and returns ``s``)."""
    _state["rng"] = np.random.default_rng(int(s))
    return s


def next_seed():
    """A fresh nonzero 31-bit seed for one random op call."""
    return int(_state["rng"].integers(1, 2**31 - 1))
