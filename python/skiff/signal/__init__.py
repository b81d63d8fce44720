"""paddle.signal: the short-time Fourier transform (stft) and its inverse (istft)."""
from .stft import istft, stft

__all__ = ["stft", "istft"]
