"""kl_divergence and register_kl (Paddle's paddle.distribution.kl): KL(p || q) looked up by
the pair of distribution types, the most specific registered pair first. The registry
lives beside Distribution, whose kl_divergence method uses it."""
from .distribution import kl_divergence, register_kl

__all__ = ["kl_divergence", "register_kl"]
