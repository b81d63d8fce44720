"""Records of a stream as tensors: a schema of named fields (dtype, shape, encoding) that
decodes one record's fields into numpy arrays, or says in words why it cannot (the reason
a dead letter carries)."""
import numpy as np

__all__ = ["Field", "RecordError", "Schema"]


class RecordError(ValueError):
    """A record that cannot become a training or scoring example; ``str()`` is the reason."""


class Field:
    """One named field of a record: ``dtype`` and ``shape`` (``[]`` for a scalar) of the
    array it decodes to; ``encoding`` "raw" (the array's little-endian bytes, as
    ``ndarray.tobytes()`` writes them) or "text" (numbers separated by commas or spaces);
    ``allow_nan`` False refuses NaN and infinities."""

    def __init__(self, name, dtype="float32", shape=(), encoding="raw", allow_nan=False):
        if encoding not in ("raw", "text"):
            raise ValueError(f"field '{name}': encoding must be 'raw' or 'text', got {encoding!r}")
        self.name = name
        self.key = name.encode()
        self.dtype = np.dtype(dtype).newbyteorder("<")
        self.shape = tuple(int(d) for d in shape)
        self.size = int(np.prod(self.shape, dtype=np.int64))
        self.encoding = encoding
        self.allow_nan = allow_nan

    def decode(self, value):
        if self.encoding == "raw":
            if len(value) != self.size * self.dtype.itemsize:
                raise RecordError(
                    f"field '{self.name}': {len(value)} bytes, {self.describe()} needs "
                    f"{self.size * self.dtype.itemsize}")
            array = np.frombuffer(value, dtype=self.dtype)
        else:
            text = value.decode("utf-8", "replace").replace(",", " ").split()
            try:
                array = np.array([float(t) for t in text], dtype=self.dtype)
            except ValueError:
                raise RecordError(f"field '{self.name}': not numbers: {value[:40]!r}") from None
            if array.size != self.size:
                raise RecordError(f"field '{self.name}': {array.size} numbers, "
                                  f"{self.describe()} needs {self.size}")
        if (not self.allow_nan and array.dtype.kind == "f"
                and not np.isfinite(array).all()):
            raise RecordError(f"field '{self.name}': NaN or infinity where the schema forbids it")
        return array.reshape(self.shape).astype(self.dtype.newbyteorder("="), copy=False)

    def describe(self):
        return f"{self.dtype.name}{list(self.shape)}"


class Schema:
    """The fields of a record. ``Schema({"x": ("float32", [13]), "y": ("int64", [])})``, or a
    list of Fields. ``decode(fields)`` maps a record's {bytes: bytes} fields to {name: array};
    ``collate(examples)`` stacks decoded records into one array per field."""

    def __init__(self, fields):
        if isinstance(fields, dict):
            fields = [Field(name, *spec) if isinstance(spec, (tuple, list)) else spec
                      for name, spec in fields.items()]
        self.fields = list(fields)
        if not self.fields:
            raise ValueError("a Schema needs at least one field")

    def decode(self, record):
        out = {}
        for field in self.fields:
            value = record.get(field.key)
            if value is None:
                raise RecordError(f"field '{field.name}' is missing (the record has "
                                  f"{sorted(k.decode('utf-8', 'replace') for k in record)})")
            out[field.name] = field.decode(value)
        return out

    def decode_many(self, records):
        """decode() of each record, as an example or the RecordError saying why not; the
        records whose raw fields all have their sizes are decoded together (one
        ``frombuffer`` per field for all of them)."""
        out = [None] * len(records)
        sizes = [(f, f.size * f.dtype.itemsize) for f in self.fields]
        if any(f.encoding != "raw" for f in self.fields):
            fast = []
        else:
            fast = [i for i, r in enumerate(records)
                    if all(len(r.get(f.key) or b"") == n for f, n in sizes)]
        if fast:
            arrays, finite = {}, np.ones(len(fast), dtype=bool)
            for f in self.fields:
                joined = b"".join(records[i][f.key] for i in fast)
                a = np.frombuffer(joined, dtype=f.dtype).reshape(len(fast), *f.shape)
                a = a.astype(f.dtype.newbyteorder("="), copy=False)
                if not f.allow_nan and a.dtype.kind == "f":
                    finite &= np.isfinite(a.reshape(len(fast), -1)).all(axis=1)
                arrays[f.name] = a
            for j, i in enumerate(fast):
                if finite[j]:
                    out[i] = {name: a[j] for name, a in arrays.items()}
        for i, r in enumerate(records):
            if out[i] is None:
                try:
                    out[i] = self.decode(r)
                except RecordError as e:
                    out[i] = e
        return out

    def collate(self, examples):
        return {f.name: np.stack([e[f.name] for e in examples]) for f in self.fields}

    def encode(self, **arrays):
        """The fields of a record holding ``arrays`` (raw fields as bytes, text as numbers),
        as a producer writes it."""
        out = {}
        for field in self.fields:
            array = np.asarray(arrays[field.name], dtype=field.dtype)
            if array.size != field.size:
                raise ValueError(f"field '{field.name}': {array.size} values for "
                                 f"{field.describe()}")
            out[field.key] = (array.tobytes() if field.encoding == "raw"
                              else " ".join(repr(v) for v in array.ravel().tolist()).encode())
        return out
