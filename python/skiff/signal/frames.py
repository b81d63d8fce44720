"""Framing a signal into overlapping windows and adding frames back (overlap-add): the
two halves of the short-time Fourier transform, composed of gathers, pads and sums so
that gradients flow through them."""
import numpy as np

from ..framework.arguments import ArgumentError, dtype_name_of
from ..tensor.creation import data_tensor, zeros
from ..tensor.manipulation import concat, gather, reshape, slice, transpose
from ..tensor.math import add


def padded_positions(length, pad, mode):
    """The source position of each sample of a signal of ``length`` padded by ``pad`` at
    both ends: mirrored inside the signal ('reflect'), or -1 for a zero ('constant')."""
    inner = np.arange(length)
    if pad == 0:
        return inner
    if mode == "reflect":
        if pad >= length:
            raise ArgumentError(f"stft: reflect padding of {pad} needs a signal longer than "
                                f"{pad} samples, got {length}")
        left = np.arange(pad, 0, -1)
        right = np.arange(length - 2, length - 2 - pad, -1)
    else:
        left = right = np.full(pad, -1)
    return np.concatenate([left, inner, right])


def frames(x, positions, frame_length, hop):
    """[..., frame_length, num_frames]: the frames of x (last axis) read at ``positions``
    (numpy, -1 for a zero), each frame_length long, hop apart."""
    total = len(positions)
    if total < frame_length:
        raise ArgumentError(f"stft: the (padded) signal has {total} samples, fewer than "
                            f"n_fft = {frame_length}")
    count = 1 + (total - frame_length) // hop
    idx = positions[np.arange(frame_length)[:, None] + hop * np.arange(count)[None, :]]
    length = x.shape[-1]
    if (idx < 0).any():  # zeros come from one appended zero sample
        shape = list(x.shape)
        shape[-1] = 1
        x = concat([x, zeros(shape, dtype=dtype_name_of(x))], axis=-1)
        idx = np.where(idx < 0, length, idx)
    flat = data_tensor("stft", "positions", idx.reshape(-1).astype(np.int64))
    picked = gather(x, flat, axis=len(x.shape) - 1)
    return reshape(picked, list(x.shape[:-1]) + [frame_length, count])


def overlap_add(f, hop):
    """[..., (num_frames - 1) * hop + frame_length]: frames f ([..., frame_length,
    num_frames]) added at hop steps."""
    lead = list(f.shape[:-2])
    frame_length, count = f.shape[-2], f.shape[-1]
    blocks = -(-frame_length // hop)  # each frame spans this many hop-long blocks
    rank = len(f.shape)
    if blocks * hop != frame_length:  # zeros to a whole number of blocks
        shape = lead + [blocks * hop - frame_length, count]
        f = concat([f, zeros(shape, dtype=dtype_name_of(f))], axis=rank - 2)
    parts = reshape(f, lead + [blocks, hop, count])
    total = None
    for j in range(blocks):  # block j of frame t lands in output block t + j
        piece = slice(parts, [len(lead)], [j], [j + 1])
        piece = reshape(piece, lead + [hop, count])
        pads = []
        if j:
            pads.append(zeros(lead + [hop, j], dtype=dtype_name_of(f)))
        pads.append(piece)
        if blocks - 1 - j:
            pads.append(zeros(lead + [hop, blocks - 1 - j], dtype=dtype_name_of(f)))
        placed = concat(pads, axis=len(lead) + 1) if len(pads) > 1 else piece
        total = placed if total is None else add(total, placed)
    perm = list(range(len(lead))) + [len(lead) + 1, len(lead)]
    out = reshape(transpose(total, perm), lead + [(count + blocks - 1) * hop])
    return slice(out, [len(lead)], [0], [(count - 1) * hop + frame_length])
