"""skiff.nn tests share nn_reference.py (the PyTorch comparison helpers); make it
importable whatever pytest's import mode."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
