"""run_check: trains a tiny linear model for one step to show skiff works on this machine."""

__all__ = ["run_check"]


def run_check():
    """Runs a forward and backward pass and an optimizer step of a small Linear layer on the
    CPU and prints that skiff is installed successfully (raises if any step fails)."""
    import skiff
    print("Running verify skiff program ...")
    layer = skiff.nn.Linear(4, 2)
    opt = skiff.optimizer.SGD(learning_rate=0.1, parameters=layer.parameters())
    x = skiff.ones([3, 4], dtype="float32")
    loss = skiff.mean(layer(x))
    loss.backward()
    opt.step()
    opt.clear_grad()
    if layer.weight.shape != [4, 2]:
        raise skiff.Error("run_check: the trained layer has a wrong weight shape")
    print("skiff works well on 1 CPU.")
    print("skiff is installed successfully! Let's start deep learning with skiff now.")
