"""kl_divergence and register_kl (Paddle's paddle.distribution.kl): KL(p || q) looked up by
the pair of distribution types, the most specific registered pair first."""
from .distribution import Distribution

__all__ = ["kl_divergence", "register_kl"]

_REGISTRY = {}


def register_kl(cls_p, cls_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for p of cls_p and q of cls_q."""
    if not (isinstance(cls_p, type) and issubclass(cls_p, Distribution)
            and isinstance(cls_q, type) and issubclass(cls_q, Distribution)):
        raise TypeError("register_kl: cls_p and cls_q must be subclasses of Distribution")

    def decorator(fn):
        _REGISTRY[cls_p, cls_q] = fn
        return fn
    return decorator


def _lookup(type_p, type_q):
    matches = [(p, q) for p, q in _REGISTRY if issubclass(type_p, p) and issubclass(type_q, q)]
    if not matches:
        return None
    best = min(matches, key=lambda pq: (type_p.__mro__.index(pq[0]),
                                        type_q.__mro__.index(pq[1])))
    return _REGISTRY[best]


def kl_divergence(p, q):
    """KL(p || q) for a registered pair of distribution types, elementwise over the batch."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"kl_divergence: no KL formula registered for "
                                  f"{type(p).__name__} and {type(q).__name__}")
    return fn(p, q)
