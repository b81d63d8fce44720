"""fleet's collective mode in one process (a world of one) and the strategy fields it
refuses."""
import numpy as np
import pytest

import skiff
import skiff.distributed as dist
from skiff.distributed import fleet


@pytest.fixture(autouse=True)
def leave_the_world():
    """fleet.init joins a world (of one, here): leave it for the tests that follow."""
    yield
    dist.destroy_process_group()


def test_fleet_collective_mode_trains_like_the_plain_model():
    fleet.init(is_collective=True)
    assert (fleet.worker_index(), fleet.worker_num(), fleet.is_first_worker()) == (0, 1, True)
    skiff.seed(0)
    net = skiff.nn.Linear(3, 2)
    model = fleet.distributed_model(net)
    opt = fleet.distributed_optimizer(skiff.optimizer.SGD(learning_rate=0.1,
                                                          parameters=model.parameters()))
    before = net.weight.numpy().copy()
    x = skiff.to_tensor(np.ones([4, 3], np.float32))
    model(x).sum().backward()
    opt.step()
    # d(sum(x W + b))/dW = column sums of x: 4 for every entry.
    np.testing.assert_allclose(net.weight.numpy(), before - 0.1 * 4, rtol=1e-6)


def test_strategy_fields_skiff_does_not_apply_are_refused():
    strategy = fleet.DistributedStrategy()
    strategy.fuse_grad_size_in_MB = 8
    with pytest.raises(ValueError, match="DistributedStrategy.amp: not supported"):
        strategy.amp = True
    with pytest.raises(ValueError, match="scale_strategy 'avg' is the only one"):
        strategy.gradient_scale_configs = {"scale_strategy": "sum"}
    with pytest.raises(ValueError, match="only collective mode"):
        fleet.init(is_collective=False)
