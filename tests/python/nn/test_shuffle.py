"""pixel_unshuffle and channel_shuffle (skiff/nn/functional/shuffle.py) and their layers
PixelUnshuffle and ChannelShuffle (nn/layer/rearrange.py) against PaddlePaddle."""
import pytest

import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, rand, tensor


@pytest.mark.parametrize("fmt", ["NCHW", "NHWC"])
def test_pixel_unshuffle_and_channel_shuffle_match_paddle(fmt, paddle):
    x = rand(2, 8, 4, 6, dtype="float32")
    if fmt == "NHWC":
        x = x.transpose(0, 2, 3, 1).copy()
    close(F.pixel_unshuffle(tensor(x), 2, fmt),
          paddle.nn.functional.pixel_unshuffle(paddle.to_tensor(x), 2, fmt).numpy(), "float32")
    close(nn.ChannelShuffle(4, fmt)(tensor(x)),
          paddle.nn.functional.channel_shuffle(paddle.to_tensor(x), 4, fmt).numpy(), "float32")
    back = F.pixel_shuffle(nn.PixelUnshuffle(2, fmt)(tensor(x)), 2, fmt)
    close(back, x, "float32")
    with pytest.raises(ValueError, match="pixel_unshuffle.*divisible"):
        F.pixel_unshuffle(tensor(x), 5, fmt)
    with pytest.raises(ValueError, match="channel_shuffle.*divisible"):
        F.channel_shuffle(tensor(x), 3, fmt)
