"""run_check: trains a tiny linear model for one step to show skiff works on this machine."""

from .. import nn, optimizer
from .._C import Error
from ..tensor.creation import ones
from ..tensor.stat import mean

__all__ = ["run_check"]


def run_check():
    """Runs a forward and backward pass and an optimizer step of a small Linear layer on the
    CPU and prints that skiff is installed successfully (raises if any step fails)."""
    print("Running verify skiff program ...")
    layer = nn.Linear(4, 2)
    opt = optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    x = ones([3, 4], dtype="float32")
    loss = mean(layer(x))
    loss.backward()
    opt.step()
    opt.clear_grad()
    if layer.weight.shape != [4, 2]:
        raise Error("run_check: the trained layer has a wrong weight shape")
    print("skiff works well on 1 CPU.")
    print("skiff is installed successfully! Let's start deep learning with skiff now.")
