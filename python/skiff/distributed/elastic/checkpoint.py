"""The checkpoint of an elastic job: one .skparams file, written atomically, holding the
model's tensors ("model/NAME"), the optimizer's ("optimizer/NAME"), and a JSON record of the
data cursor and the optimizer's other state ("meta/json", its UTF-8 bytes as int32)."""
import json
import os

import numpy as np

from ... import _C
from ...tensor.creation import to_tensor

__all__ = ["save_checkpoint", "load_checkpoint"]


def save_checkpoint(path, model, optimizer, cursor):
    """Writes the state of ``model`` and ``optimizer`` and the data ``cursor`` (epoch,
    step, total_steps) to ``path``."""
    tensors = [("model/" + k, v) for k, v in model.state_dict().items()]
    meta = dict(cursor, optimizer={})
    for k, v in optimizer.state_dict().items():
        if hasattr(v, "numpy"):
            tensors.append(("optimizer/" + k, v))
        else:
            meta["optimizer"][k] = v
    text = json.dumps(meta, default=float).encode()
    tensors.append(("meta/json", to_tensor(np.frombuffer(text, np.uint8).astype(np.int32))))
    _C.save_params(path, tensors)


def load_checkpoint(path):
    """The state in ``path`` as a dict: model and optimizer (numpy arrays and the
    optimizer's other values), epoch, step, total_steps; None when there is no file."""
    if not os.path.exists(path):
        return None
    named = dict(_C.load_params(path))
    meta = json.loads(named.pop("meta/json").numpy().astype(np.uint8).tobytes())
    state = {"model": {}, "optimizer": dict(meta["optimizer"]), "epoch": meta["epoch"],
             "step": meta["step"], "total_steps": meta["total_steps"]}
    for name, t in named.items():
        part, key = name.split("/", 1)
        state[part][key] = t.numpy()
    return state
