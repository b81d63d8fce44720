"""Kubernetes resource quantities ("500m", "2Gi", "1.5", "4G") as numbers, and a resource
map ({"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 1}) as the autoscaler's Resources."""
import re

from ..autoscaler.state import Resources

__all__ = ["parse_quantity", "to_resources", "GPU"]

GPU = "nvidia.com/gpu"
_SUFFIX = {"": 1, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
           "Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "Pi": 2 ** 50,
           "Ei": 2 ** 60}
_QUANTITY = re.compile(r"^([+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(Ki|Mi|Gi|Ti|Pi|Ei|[mkMGTPE]?)$")


def parse_quantity(value):
    """The number a quantity stands for (cores for CPU, bytes for memory); raises
    ValueError for text that is not a quantity."""
    if isinstance(value, (int, float)):
        return float(value)
    found = _QUANTITY.match(str(value).strip())
    if not found:
        raise ValueError(f"not a Kubernetes quantity: {value!r}")
    return float(found.group(1)) * _SUFFIX[found.group(2)]


def to_resources(amounts):
    """Resources(cpu cores, memory GiB, GPUs) of a resource map; absent ones are 0."""
    amounts = amounts or {}
    return Resources(cpu=parse_quantity(amounts.get("cpu", 0)),
                     memory=parse_quantity(amounts.get("memory", 0)) / 2 ** 30,
                     gpu=int(parse_quantity(amounts.get(GPU, 0))))
