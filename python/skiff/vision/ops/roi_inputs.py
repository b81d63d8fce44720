"""The checks the RoI functions (roi_align, roi_pool, psroi_pool) share, and the image each
box belongs to, found from boxes_num with tensor ops (so it also runs in a program)."""
from ...framework import arguments
from ...framework.mode import mode
from ... import tensor as T

__all__ = ["check_roi_inputs", "box_images", "pooled_size"]


def pooled_size(fn, output_size):
    """output_size (an int, or two ints) as [pooled_h, pooled_w], each >= 1."""
    size = arguments.sizes(fn, "output_size", output_size, 2)
    for i, s in enumerate(size):
        if s < 1:
            raise arguments.ArgumentError(f"{fn}: output_size[{i}] must be >= 1, got {s}")
    return size


def check_roi_inputs(fn, x, boxes, boxes_num):
    """Checks x [N, C, H, W] (float), boxes [R, 4] of x's dtype and boxes_num [N] (int32
    or int64, summing to R where the values are known)."""
    arguments.tensor(fn, "x", x)
    arguments.tensor(fn, "boxes", boxes)
    arguments.tensor(fn, "boxes_num", boxes_num)
    arguments.dtype_in(fn, "x", x, ("float32", "float64"))
    if len(x.shape) != 4:
        raise arguments.ArgumentError(f"{fn}: x must be 4-D [N, C, H, W], got shape "
                                      f"{list(x.shape)}")
    if len(boxes.shape) != 2 or boxes.shape[1] != 4:
        raise arguments.ArgumentError(f"{fn}: boxes must be 2-D [num_boxes, 4], got shape "
                                      f"{list(boxes.shape)}")
    if arguments.dtype_name_of(boxes) != arguments.dtype_name_of(x):
        raise arguments.ArgumentTypeError(
            f"{fn}: boxes must have x's dtype {arguments.dtype_name_of(x)}, got "
            f"{arguments.dtype_name_of(boxes)}")
    arguments.dtype_in(fn, "boxes_num", boxes_num, ("int32", "int64"))
    if len(boxes_num.shape) != 1:
        raise arguments.ArgumentError(f"{fn}: boxes_num must be 1-D [N], got shape "
                                      f"{list(boxes_num.shape)}")
    n = x.shape[0]
    if n >= 0 and boxes_num.shape[0] >= 0 and boxes_num.shape[0] != n:
        raise arguments.ArgumentError(f"{fn}: boxes_num must hold one count per image of x "
                                      f"({n}), got {boxes_num.shape[0]}")
    if not mode.static:
        counts = boxes_num.numpy()
        if (counts < 0).any() or int(counts.sum()) != boxes.shape[0]:
            raise arguments.ArgumentError(
                f"{fn}: boxes_num {counts.tolist()} must be >= 0 and sum to the number of "
                f"boxes ({boxes.shape[0]})")


def box_images(boxes, boxes_num):
    """The image index (int64 [R]) of each box: box r belongs to image n where
    sum(boxes_num[:n]) <= r < sum(boxes_num[:n + 1])."""
    ones = T.ones_like(boxes[:, 0], dtype="int64")
    position = T.cumsum(ones, axis=0) - 1                       # 0 .. R-1
    ends = T.cumsum(T.cast(boxes_num, "int64"), axis=0)         # [N]
    passed = T.cast(position.unsqueeze(1) >= ends.unsqueeze(0), "int64")
    return T.sum(passed, axis=1)
