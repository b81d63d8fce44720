"""paddle.batch: the reader decorator of Paddle's reader-based input pipelines, which
groups the items a reader yields into lists of batch_size."""

__all__ = ["batch"]


def batch(reader, batch_size, drop_last=False):
    """A reader (a function returning a generator) yielding lists of ``batch_size`` items
    of ``reader``'s, in order; the last, shorter list is dropped when ``drop_last``."""
    if not callable(reader):
        raise TypeError(f"batch: reader must be a function returning a generator, got "
                        f"{type(reader).__name__}")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, float)) \
            or batch_size <= 0 or int(batch_size) != batch_size:
        raise ValueError(f"batch: batch_size should be a positive integer value, but got "
                         f"batch_size={batch_size!r}")
    size = int(batch_size)

    def batch_reader():
        items = []
        for item in reader():
            items.append(item)
            if len(items) == size:
                yield items
                items = []
        if items and not drop_last:
            yield items

    return batch_reader
