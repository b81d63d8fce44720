"""Distributions check their parameters (numbers, lists, arrays or float Tensors), shapes and
the values given to their methods, naming the distribution and the argument."""
import numpy as np
import pytest

import skiff
from skiff.framework.arguments import ArgumentError, ArgumentTypeError

D = skiff.distribution


def _raises(error, fn, *words):
    pattern = "^" + fn + r":" + "".join(f"(?=.*{w})" for w in words)
    return pytest.raises(error, match=pattern)


def test_parameters():
    with _raises(ArgumentTypeError, "Bernoulli", "probs", "bool"):
        D.Bernoulli(skiff.to_tensor(np.ones((3, 3), "bool")))
    with _raises(ArgumentError, "Laplace", "loc", "ragged"):
        D.Laplace([-1, (3, 3)], 1.0)
    with _raises(ArgumentTypeError, "Categorical", "logits", "strings"):
        D.Categorical([["sum"]])
    with _raises(ArgumentTypeError, "Categorical.probs", "value", "float"):
        D.Categorical([0.5, 0.5]).probs(0.1)
    with _raises(ArgumentTypeError, "Distribution", "event_shape", "str"):
        D.Distribution(event_shape="ab")
    assert D.Normal(0.0, 1.0).log_prob([0.5, 1.0]).shape == [2]


def test_len_of_a_0d_tensor_is_a_type_error():
    with pytest.raises(TypeError, match="0-D"):
        len(skiff.to_tensor(1.0))
    assert len(skiff.ones([3, 2])) == 3
