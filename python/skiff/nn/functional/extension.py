"""Sequence helpers of paddle.nn.functional: gather_tree (the full beams of a beam search
traced back from their parents) and temporal_shift (the Temporal Shift Module's channel
shift between neighbouring frames)."""
from ...framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of
from ...tensor import concat, reshape, take_along_axis, transpose, zeros

__all__ = ["gather_tree", "temporal_shift"]


def gather_tree(ids, parents):
    """The beams of ids [T, B, beam] traced back through parents [T, B, beam] from the
    last step: out[T-1] = ids[T-1], out[t] = ids[t] at the beams the later steps came
    from."""
    if list(ids.shape) != list(parents.shape) or len(ids.shape) != 3:
        raise ArgumentError(f"gather_tree: ids and parents must both be [T, batch, beam], "
                            f"got {list(ids.shape)} and {list(parents.shape)}")
    for name, t in (("ids", ids), ("parents", parents)):
        if dtype_name_of(t) not in ("int32", "int64"):
            raise ArgumentTypeError(f"gather_tree: {name} must be int32 or int64, got "
                                    f"{dtype_name_of(t)}")
    steps, beam = int(ids.shape[0]), int(ids.shape[2])
    if steps == 0:
        return ids
    if int(parents.shape[1]) and (int(parents.min()) < 0 or int(parents.max()) >= beam):
        raise ArgumentError(f"gather_tree: parents must lie in [0, {beam})")
    parent = parents[steps - 1]
    rows = [ids[steps - 1]]
    for t in range(steps - 2, -1, -1):
        rows.append(take_along_axis(ids[t], parent, axis=1))
        parent = take_along_axis(parents[t], parent, axis=1)
    return concat([reshape(r, [1] + list(r.shape)) for r in reversed(rows)], axis=0)


def temporal_shift(x, seg_num, shift_ratio=0.25, name=None, data_format="NCHW"):
    """x [N * T, C, H, W] (or NHWC) seen as T = seg_num frames: the first C * shift_ratio
    channels take the previous frame's values, the next as many the next frame's, zeros
    past either end; the other channels stay."""
    if data_format not in ("NCHW", "NHWC"):
        raise ArgumentError(f"temporal_shift: data_format must be 'NCHW' or 'NHWC', got "
                            f"{data_format!r}")
    if len(x.shape) != 4:
        raise ArgumentError(f"temporal_shift: x must be 4-D, got shape {list(x.shape)}")
    if isinstance(seg_num, bool) or not isinstance(seg_num, int) or seg_num < 1:
        raise ArgumentError(f"temporal_shift: seg_num must be a positive int, got {seg_num!r}")
    if not 0.0 <= shift_ratio <= 0.5:
        raise ArgumentError(f"temporal_shift: shift_ratio must lie in [0, 0.5], got "
                            f"{shift_ratio}")
    if data_format == "NHWC":
        x = transpose(x, [0, 3, 1, 2])
    nt, c, h, w = (int(d) for d in x.shape)
    if nt % seg_num:
        raise ArgumentError(f"temporal_shift: the first dim {nt} of x must be a multiple of "
                            f"seg_num {seg_num}")
    frames = reshape(x, [nt // seg_num, seg_num, c, h, w])
    c1, c2 = int(c * shift_ratio), int(c * 2 * shift_ratio)
    blank = zeros([nt // seg_num, 1, c, h, w], dtype_name_of(x))
    padded = concat([blank, frames, blank], axis=1)  # frame t at t + 1
    parts = [padded[:, :seg_num, :c1], padded[:, 2:, c1:c2], frames[:, :, c2:]]
    out = reshape(concat(parts, axis=2), [nt, c, h, w])
    return transpose(out, [0, 2, 3, 1]) if data_format == "NHWC" else out
