"""Checkpoints of a model split over ranks that load under another layout (Paddle's
paddle.distributed.save_state_dict / load_state_dict).

Every tensor of a state dict is saved as pieces of its whole value: a tensor split over the
model-parallel group (``is_distributed``, cut along ``split_axis``) is this rank's range
of that axis; any other is whole. Each piece is written once, by the lowest rank holding
it, into ``PATH/<rank>.distcp``; rank 0 writes ``PATH/metadata`` (which file holds which
range of which tensor). Loading fills each tensor of the given state dict, whole or this
rank's range, from the pieces that cover it, whatever layout wrote them:

    dist.save_state_dict(model.state_dict(), "ckpt")     # e.g. trained with mp_degree 2
    dist.load_state_dict(model.state_dict(), "ckpt")     # e.g. in one process
"""
import os

import numpy as np

from ..framework.grad_mode import no_grad
from ..framework.io import load, save
from . import collective
from .fleet import get_hybrid_communicate_group

__all__ = ["save_state_dict", "load_state_dict"]


def _split(tensor):
    """(axis, offset, whole length) of a tensor split over the model-parallel group, or
    None for a whole one."""
    if not getattr(tensor, "is_distributed", False):
        return None
    hcg = get_hybrid_communicate_group()
    axis = tensor.split_axis
    part = tensor.shape[axis]
    return axis, hcg.get_model_parallel_rank() * part, part * hcg.get_model_parallel_world_size()


def _piece(name, tensor):
    """The piece's key: (name, axis, offset, length) — axis None for a whole tensor."""
    split = _split(tensor)
    if split is None:
        return (name, None, 0, 0)
    axis, offset, _ = split
    return (name, axis, offset, tensor.shape[axis])


def save_state_dict(state_dict, path):
    """Writes ``state_dict`` ({name: Tensor}) of every rank into the folder ``path``
    (every rank calls it)."""
    rank, world = collective.get_rank(), collective.get_world_size()
    os.makedirs(path, exist_ok=True)
    mine = {_piece(name, t): t for name, t in state_dict.items()}
    holders = [list(mine)]
    if world > 1:
        holders = []
        collective.all_gather_object(holders, list(mine))
    owner = {}
    for r, pieces in enumerate(holders):
        for piece in pieces:
            owner.setdefault(piece, r)
    save({_key_text(p): t.numpy() for p, t in mine.items() if owner[p] == rank},
         os.path.join(path, f"{rank}.distcp"))
    if rank == 0:
        shapes = {}
        for name, t in state_dict.items():
            split = _split(t)
            shape = list(t.shape)
            if split is not None:
                shape[split[0]] = split[2]
            shapes[name] = shape
        save({"pieces": {_key_text(p): r for p, r in owner.items()}, "shapes": shapes},
             os.path.join(path, "metadata"))
    if world > 1:
        collective.barrier()  # every file is there before anyone reads


def load_state_dict(state_dict, path):
    """Fills each tensor of ``state_dict`` (whole, or this rank's range of a split one)
    from the checkpoint in ``path``; ValueError naming a tensor the checkpoint lacks or
    holds with another shape."""
    meta = load(os.path.join(path, "metadata"))
    pieces = {}  # name -> [(axis, offset, length, rank)]
    for text, r in meta["pieces"].items():
        name, axis, offset, length = _key_of(text)
        pieces.setdefault(name, []).append((axis, offset, length, r))
    files = {}

    def piece_value(name, axis, offset, length, r):
        if r not in files:
            files[r] = load(os.path.join(path, f"{r}.distcp"), return_numpy=True)
        return files[r][_key_text((name, axis, offset, length))]

    for name, tensor in state_dict.items():
        if name not in meta["shapes"]:
            raise ValueError(f"load_state_dict: '{name}' is not in the checkpoint '{path}'")
        whole_shape = meta["shapes"][name]
        split = _split(tensor)
        want_shape = list(tensor.shape)
        if split is not None:
            want_shape[split[0]] = split[2]
        if want_shape != whole_shape:
            raise ValueError(f"load_state_dict: '{name}' is {whole_shape} in '{path}' but "
                             f"{want_shape} here")
        value = _whole(name, pieces[name], whole_shape, piece_value)
        if split is not None:
            axis, offset, _ = split
            value = np.take(value, range(offset, offset + tensor.shape[axis]), axis=axis)
        with no_grad():
            tensor.set_value(np.ascontiguousarray(value))


def _whole(name, held, shape, piece_value):
    """The whole value of ``name`` from its pieces."""
    whole = [p for p in held if p[0] is None]
    if whole:
        return piece_value(name, *whole[0])
    axis = held[0][0]
    parts = sorted(held, key=lambda p: p[1])
    return np.concatenate([piece_value(name, *p) for p in parts], axis=axis)


def _key_text(piece):
    name, axis, offset, length = piece
    return f"{name}|{'' if axis is None else axis}|{offset}|{length}"


def _key_of(text):
    name, axis, offset, length = text.rsplit("|", 3)
    return name, (int(axis) if axis else None), int(offset), int(length)
