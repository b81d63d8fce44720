"""InputSpec.batch / unbatch change the spec in place and return it, as Paddle 3.3.1's do;
bad batch sizes are refused. Compared with Paddle's InputSpec."""
import paddle.static as real
import pytest

from skiff.static import InputSpec


def _same(ours, theirs):
    assert ours.shape == tuple(theirs.shape)
    assert ours.name == theirs.name
    assert repr(ours).replace("skiff", "paddle") == repr(theirs)


@pytest.mark.parametrize("size", [4, -1, 0, [3], (2,)])
def test_batch_in_place(size):
    ours, theirs = InputSpec([64], "float32", "x"), real.InputSpec([64], "float32", "x")
    assert ours.batch(size) is ours and theirs.batch(size) is theirs
    _same(ours, theirs)


def test_unbatch_in_place():
    ours, theirs = InputSpec([4, None, 3], "float32", "x"), real.InputSpec([4, None, 3],
                                                                            "float32", "x")
    assert ours.unbatch() is ours and theirs.unbatch() is theirs
    _same(ours, theirs)
    ours.unbatch().unbatch()
    assert ours.shape == ()
    with pytest.raises(ValueError, match="no dims"):
        ours.unbatch()


@pytest.mark.parametrize("size, error", [("4", TypeError), (2.5, TypeError), (None, TypeError),
                                         ([1, 2], ValueError), (-3, ValueError)])
def test_bad_batch_size(size, error):
    spec = InputSpec([64])
    with pytest.raises(error, match="batch_size"):
        spec.batch(size)
    assert spec.shape == (64,)
