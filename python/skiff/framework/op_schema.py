"""Op schemas from the registry: an op's input and output slots and its attributes with
their defaults, read once per op type."""
from .. import _C

_schemas = {}


def schema(type):
    """The op's schema as a dict (slots, attrs with defaults), cached."""
    s = _schemas.get(type)
    if s is None:
        s = _schemas[type] = _C.op_schema(type)
    return s
