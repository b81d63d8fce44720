"""The launcher: ``python -m skiff.distributed.launch`` (see main.py)."""
from .main import launch, main

__all__ = ["launch", "main"]
