"""Admission of new ids into a sparse table (Paddle's paddle.distributed entries): a table
of an unbounded id space gives a row only to ids seen often enough, so rare ids take no
memory on the servers. Until an id is admitted its lookups read zeros and its gradients
are dropped (counted in ps.info()'s dropped_unadmitted).

    emb = static.nn.sparse_embedding(ids, [0, 8], entry=CountFilterEntry(3))

Rows that go unused are evicted by ps.shrink() / fleet.shrink() (ttl)."""
import numbers

__all__ = ["EntryAttr", "CountFilterEntry", "ProbabilityEntry"]


class EntryAttr:
    """How ids are admitted into a sparse table: Paddle's form ``name:value`` and the
    servers' settings (create_table's admit_count / admit_probability)."""

    def __init__(self, name, value, config):
        self._name, self._value, self._config = name, value, config

    def table_config(self):
        return dict(self._config)

    def _to_attr(self):
        """Paddle's string form of the entry (e.g. "count_filter_entry:3")."""
        return f"{self._name}:{self._value}"

    def __repr__(self):
        return f"{type(self).__name__}({self._value})"


class CountFilterEntry(EntryAttr):
    """An id gets a row at its ``count_filter``-th touch (pulls and pushes; the ids of one
    lookup count once); 0 or 1: at the first."""

    def __init__(self, count_filter):
        if isinstance(count_filter, bool) or not isinstance(count_filter, numbers.Integral) \
                or count_filter < 0:
            raise ValueError(f"CountFilterEntry: count_filter must be an integer >= 0, got "
                             f"{count_filter!r}")
        self.count_filter = int(count_filter)
        super().__init__("count_filter_entry", self.count_filter,
                         {"admit_count": self.count_filter})


class ProbabilityEntry(EntryAttr):
    """Each touch of an id without a row gives it one with chance ``probability`` in
    (0, 1]. The draws come from a hash of the table's seed, the id and the touch's number:
    every run admits the same ids at the same touches."""

    def __init__(self, probability):
        if isinstance(probability, bool) or not isinstance(probability, numbers.Real) or \
                not 0 < probability <= 1:
            raise ValueError(f"ProbabilityEntry: probability must be a number in (0, 1], got "
                             f"{probability!r}")
        self.probability = float(probability)
        super().__init__("probability_entry", self.probability,
                         {"admit_probability": self.probability})


def table_config(entry, what):
    """The create_table settings of ``entry`` (None: every id admitted at first touch);
    TypeError naming ``what`` for anything else than the entries above."""
    if entry is None:
        return {}
    if not isinstance(entry, EntryAttr):
        raise TypeError(f"{what}: entry must be a CountFilterEntry or a ProbabilityEntry, got "
                        f"{type(entry).__name__} (Paddle's ShowClickEntry, which admits ids by "
                        f"a CTR accessor's show/click statistics, has no equal in skiff's "
                        f"tables)")
    return entry.table_config()
