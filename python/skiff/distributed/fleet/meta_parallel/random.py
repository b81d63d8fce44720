"""Named states of the random generator for tensor parallelism (Paddle's
fleet.meta_parallel.get_rng_state_tracker): random ops in a replicated region must draw
alike on every model-parallel rank, those on a split activation differently per rank.

    model_parallel_random_seed(1234)     # global generator alike, "model_parallel_rng" per rank
    with get_rng_state_tracker().rng_state():   # dropout of this rank's slice
        h = F.dropout(h, 0.1)
"""
import contextlib

import numpy as np

from ... import collective
from ... import fleet
from ....framework.random import get_rng_state, seed as global_seed, set_rng_state
from ....tensor.creation import to_tensor

__all__ = ["MODEL_PARALLEL_RNG", "RNGStatesTracker", "get_rng_state_tracker",
           "model_parallel_random_seed"]

MODEL_PARALLEL_RNG = "model_parallel_rng"


class RNGStatesTracker:
    """Generator states by name, each started from its own seed; ``rng_state(name)`` runs
    its block on that state and keeps where the block left it, the global generator
    returned afterwards to where it was."""

    def __init__(self):
        self.states_ = {}
        self.seeds_ = set()

    def reset(self):
        self.states_ = {}
        self.seeds_ = set()

    def add(self, name, seed):
        """A new state ``name`` started from ``seed`` (both unused so far)."""
        if seed in self.seeds_:
            raise ValueError(f"RNGStatesTracker.add: seed {seed} is already used")
        if name in self.states_:
            raise ValueError(f"RNGStatesTracker.add: state '{name}' already exists")
        self.seeds_.add(seed)
        outside = get_rng_state()
        try:
            global_seed(seed)
            self.states_[name] = get_rng_state()
        finally:
            set_rng_state(outside)

    def get_states_tracker(self):
        """A copy of the states by name (set_states_tracker returns to it)."""
        return dict(self.states_)

    def set_states_tracker(self, states):
        self.states_ = dict(states)

    @contextlib.contextmanager
    def rng_state(self, name=MODEL_PARALLEL_RNG):
        """Random ops inside draw from state ``name``."""
        if name not in self.states_:
            raise ValueError(f"RNGStatesTracker.rng_state: no state '{name}' (states: "
                             f"{sorted(self.states_)}); add it first, e.g. by "
                             f"model_parallel_random_seed()")
        outside = get_rng_state()
        set_rng_state(self.states_[name])
        try:
            yield
        finally:
            self.states_[name] = get_rng_state()
            set_rng_state(outside)


_TRACKER = RNGStatesTracker()


def get_rng_state_tracker():
    """The process's RNGStatesTracker."""
    return _TRACKER


def model_parallel_random_seed(seed=None):
    """Seeds the global generator with ``seed`` on every model-parallel rank and the state
    "model_parallel_rng" with seed * 1024 + 100 * mp_rank (as Paddle), after resetting the
    tracker. Without ``seed`` the first rank of the model-parallel group draws one and
    gives it to the others. Needs fleet.init's hybrid layout."""
    try:
        hcg = fleet.get_hybrid_communicate_group()
    except RuntimeError as e:
        raise RuntimeError("model_parallel_random_seed: call fleet.init(is_collective=True, "
                           "strategy=...) with hybrid_configs first") from e
    if seed is None:
        drawn = to_tensor(np.array([np.random.randint(1, 655350)], np.int64))
        collective.broadcast(drawn, hcg.get_model_parallel_group_src_rank(),
                             hcg.get_model_parallel_group())
        seed = int(drawn.numpy()[0])
    _TRACKER.reset()
    _TRACKER.add(MODEL_PARALLEL_RNG, seed * 1024 + 100 * hcg.get_model_parallel_rank())
    global_seed(seed)
