"""skiff.linalg.matrix_power and multi_dot against torch.linalg (values and gradients,
float64)."""
import numpy as np
import torch

import skiff

from linalg_reference import run_both, well_conditioned

rng = np.random.default_rng(0)


def test_matrix_power_and_multi_dot():
    a = well_conditioned(3, 3)
    eye = skiff.linalg.matrix_power(skiff.to_tensor(np.stack([a, a])), 0).numpy()
    np.testing.assert_array_equal(eye, np.stack([np.eye(3)] * 2))
    for n in (1, 3, -2):
        run_both(lambda x: skiff.linalg.matrix_power(x, n),
                 lambda t: torch.linalg.matrix_power(t, n), a)
    ms = [rng.standard_normal(s) for s in ((2, 3), (3, 4), (4, 2))]
    run_both(lambda *xs: skiff.linalg.multi_dot(list(xs)),
             lambda *ts: torch.linalg.multi_dot(list(ts)), *ms)
