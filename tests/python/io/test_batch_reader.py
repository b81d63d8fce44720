"""skiff.batch: the reader decorator groups a reader's items as paddle.batch does."""
import paddle
import pytest

import skiff


def _reader(n):
    def reader():
        yield from range(n)
    return reader


@pytest.mark.parametrize("n,size,drop_last", [(10, 2, False), (5, 2, False), (5, 2, True),
                                              (5, 5, True), (5, 6, True), (5, 6, False),
                                              (0, 3, False), (7, 3.0, False)])
def test_batches_as_paddle(n, size, drop_last):
    ours = skiff.batch(_reader(n), size, drop_last)
    theirs = paddle.batch(_reader(n), size, drop_last)
    assert list(ours()) == list(theirs())
    assert list(ours()) == list(theirs())  # a reader: each call starts over


def test_errors():
    for bad in (0, -1, 2.5, True, "2"):
        with pytest.raises(ValueError, match="batch_size should be a positive integer"):
            skiff.batch(_reader(3), bad)
    with pytest.raises(TypeError, match="batch: reader must be a function"):
        skiff.batch([1, 2, 3], 2)
