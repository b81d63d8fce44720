"""examples/fashion_mnist.py on a small slice of Fashion-MNIST: Model.fit trains, the
network converted by to_static, saved and loaded back predicts what the eager network
predicts, and the saved files run on their own."""
import importlib.util
import os
import pathlib

import numpy as np
import pytest

import skiff

EXAMPLE = pathlib.Path(__file__).resolve().parents[3] / "examples" / "fashion_mnist.py"
DATA = "/usr/share/datasets/fashion-mnist"

pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(DATA, "t10k-labels-idx1-ubyte.gz"))
    and not os.path.exists(os.path.join(DATA, "t10k-labels-idx1-ubyte")),
    reason="Fashion-MNIST (Debian package dataset-fashion-mnist) is not installed")


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("fashion_mnist_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_small_run_trains_and_the_loaded_program_agrees(example, tmp_path, capsys):
    prefix = str(tmp_path / "fm")
    logdir = str(tmp_path / "log")
    args = example.parse_args(["--epochs", "1", "--train-samples", "1024",
                               "--test-samples", "1000", "--save", prefix, "--verbose", "2",
                               "--logdir", logdir])
    eager, program = example.run(args)
    out = capsys.readouterr().out
    assert "Epoch 1/1" in out and "step 16/16" in out and "Total params: 50,186" in out
    assert os.path.exists(prefix + ".skmodel") and os.path.exists(prefix + ".skparams")
    # The training log: every step's loss and accuracy, the test accuracy, the program.
    log = skiff._C.RunLog(logdir)
    log.reload()
    steps, _, losses = log.scalars("train/loss")
    assert list(steps) == list(range(1, 17)) and np.all(np.isfinite(losses))
    assert len(log.scalars("train/acc")[0]) == 16
    assert log.scalars("test/accuracy")[2][0] == pytest.approx(eager, abs=1e-6)
    assert os.path.exists(os.path.join(logdir, "programs", "ConvNet.skmodel"))
    # 1024 images are enough to be far above chance (0.1).
    assert eager > 0.45
    assert program == pytest.approx(eager)


def test_loaded_program_matches_the_eager_network(example, tmp_path):
    skiff.seed(7)
    net = example.ConvNet()
    net.eval()
    image = skiff.static.InputSpec([None, 1, 28, 28], "float32", "image")
    skiff.jit.save(skiff.jit.to_static(net, input_spec=[image]), str(tmp_path / "m"))
    loaded = skiff.jit.load(str(tmp_path / "m"))
    x = skiff.to_tensor(np.random.default_rng(0).standard_normal((3, 1, 28, 28))
                        .astype(np.float32))
    np.testing.assert_allclose(loaded(x).numpy(), net(x).numpy(), rtol=1e-5, atol=1e-5)


def test_accuracy_floor_sets_the_exit_status(example, tmp_path):
    argv = ["--epochs", "1", "--train-samples", "64", "--test-samples", "100",
            "--save", str(tmp_path / "fm"), "--verbose", "0", "--logdir", ""]
    assert example.main(argv + ["--min-accuracy", "0.999"]) == 1
