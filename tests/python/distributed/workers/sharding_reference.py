"""One process trains the shared MLP on the whole batch: argv = output .npz, and
optionally a checkpoint directory, which a fresh model and optimizer then load; both go on
for one more step. Writes the losses, parameters and optimizer state of each."""
import os
import re
import sys

import numpy as np

import skiff
from sharding_model import STEPS, build, train_step


def state(model, opt, prefix):
    """Parameters and optimizer state by name (accumulators without their counter)."""
    out = {f"{prefix}param/{k}": v.numpy() for k, v in model.state_dict().items()}
    out.update({f"{prefix}opt/{re.sub(r'_[0-9]+$', '', k)}": np.asarray(v.numpy())
                for k, v in opt.state_dict().items()})
    return out


model, opt = build()
out = {"losses": np.array([train_step(model, opt, step) for step in range(STEPS)])}
out.update(state(model, opt, ""))
if len(sys.argv) > 2:
    with skiff.utils.unique_name.guard():  # the names the checkpoint's process gave
        loaded_model, loaded_opt = build()
    loaded_model.set_state_dict(skiff.load(os.path.join(sys.argv[2], "model.pdparams")))
    loaded_opt.set_state_dict(skiff.load(os.path.join(sys.argv[2], "model.pdopt")))
    out.update(state(loaded_model, loaded_opt, "loaded/"))
    out["next_loss"] = train_step(model, opt, STEPS)
    out["loaded_next_loss"] = train_step(loaded_model, loaded_opt, STEPS)
    out.update(state(model, opt, "next/"))
    out.update(state(loaded_model, loaded_opt, "loaded_next/"))
np.savez(sys.argv[1], **out)
