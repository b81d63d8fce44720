"""The ``pretrained`` argument of the model builders: skiff ships no weights."""
from ...framework import arguments


def refuse_pretrained(arch, pretrained):
    """Checks the ``pretrained`` flag of builder ``arch``; True raises an ArgumentError, as
    skiff cannot download Paddle's pretrained weights (load them with set_state_dict)."""
    if arguments.flag(arch, "pretrained", pretrained):
        raise arguments.ArgumentError(
            f"{arch}: pretrained=True is not supported: skiff does not download pretrained "
            f"weights. Build the model with pretrained=False and load a saved Paddle state "
            f"dict into it: model.set_state_dict(paddle.load('{arch}.pdparams'))")
