"""pairwise_distance and PairwiseDistance (skiff/nn/functional/distance.py) against
PyTorch: values and gradients for several p, keepdim, p=0 and 1-D inputs."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, compare, rand, tensor, torch_tensor


@pytest.mark.parametrize("p,keepdim", [(2.0, False), (1.0, True), (3.0, False),
                                       (float("inf"), False), (float("-inf"), True)])
def test_pairwise_distance_matches_torch(p, keepdim):
    (xs, xt), (ys, yt) = [(tensor(a, True), torch_tensor(a, True))
                          for a in (rand(4, 5), rand(4, 5, seed=1))]
    compare(F.pairwise_distance(xs, ys, p, 1e-6, keepdim),
            TF.pairwise_distance(xt, yt, p, 1e-6, keepdim))
    close(xs.grad, xt.grad)
    close(ys.grad, yt.grad)
    close(nn.PairwiseDistance(p, keepdim=keepdim)(tensor(rand(4, 5)), tensor(rand(4, 5, seed=1))),
          torch.nn.PairwiseDistance(p, keepdim=keepdim)(torch.tensor(rand(4, 5)),
                                                         torch.tensor(rand(4, 5, seed=1))))


def test_pairwise_distance_p0_and_1d():
    x, y = np.array([[1.0, 2.0, 3.0]]), np.array([[1.0, 0.0, 3.0]])
    close(F.pairwise_distance(tensor(x), tensor(y), p=0, epsilon=0.0), [1.0])
    assert F.pairwise_distance(tensor(x[0]), tensor(y[0])).shape == []
