"""Functions that pass their arguments on (scatter_, the in-place comparisons and bitwise
functions, the image functions of vision.transforms) and layers called with the wrong inputs
report a mistake in the arguments as one of the function the user called, not of the inner
function (an ArgumentTypeError, or Python's own TypeError at the call)."""
import numpy as np
import pytest

import skiff
from skiff.framework.arguments import ArgumentTypeError


def test_scatter_names_itself():
    with pytest.raises(ArgumentTypeError, match=r"^scatter_\(\) missing 2 required .*'index'"):
        skiff.scatter_(skiff.ones([2]))
    with pytest.raises(ArgumentTypeError, match=r"^scatter_\(\) got an unexpected keyword"):
        skiff.ones([2]).scatter_(0, bogus=1)


@pytest.mark.parametrize("fn", ["less_than_", "logical_xor_", "equal_", "bitwise_and_",
                                "gcd_"])
def test_in_place_functions_name_themselves(fn):
    x = skiff.ones([2], "int32")
    with pytest.raises(TypeError, match=rf"^{fn}\(\) missing 1 required .*'y'"):
        getattr(x, fn)()


def test_in_place_comparisons_still_compute():
    x = skiff.to_tensor([1.0, 3.0])
    assert x.less_than_(2).numpy().tolist() == [True, False]
    assert skiff.ones([2]).logical_not_().numpy().tolist() == [False, False]


@pytest.mark.parametrize("layer", [skiff.nn.SELU(), skiff.nn.CELU(), skiff.nn.ELU(),
                                   skiff.nn.CircularPad3D(1)])
def test_layers_called_without_input_name_the_layer(layer):
    name = type(layer).__name__
    with pytest.raises(ArgumentTypeError, match=rf"^{name}\.forward\(\) missing 1 required"):
        layer()
    with pytest.raises(ArgumentTypeError, match=rf"^{name}\.forward\(\) takes"):
        layer(skiff.ones([1, 1, 2, 2, 2]), 3)


def test_factory_layers_have_their_own_names():
    assert skiff.nn.SELU.forward.__qualname__ == "SELU.forward"
    assert skiff.nn.CELU.__init__.__qualname__ == "CELU.__init__"


def test_image_functions_name_themselves():
    img = np.zeros((4, 4, 3), "uint8")
    with pytest.raises(ArgumentTypeError, match=r"^adjust_contrast\(\) takes 2 positional"):
        skiff.vision.transforms.adjust_contrast(img, 1.0, 3)
