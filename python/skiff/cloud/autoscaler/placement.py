"""Where workers and pods go: node choice over a {node: free Resources} map. Every choice
is a pure function of that map, ties broken by node name, so a plan is reproducible."""

__all__ = ["most_free", "gang", "busiest", "reserve"]


def most_free(free, need):
    """The node with the most free CPU that ``need`` fits in (ties: the first name), or
    None. Spreading a job's workers keeps room on every node for the next one."""
    fitting = [name for name in free if need.fits_in(free[name])]
    return min(fitting, key=lambda name: (-free[name].cpu, name), default=None)


def gang(free, need, count):
    """{node: workers} for ``count`` workers placed one by one with ``most_free``, or None
    when they do not all fit (a job starts with all of its minimum or not at all)."""
    free = dict(free)
    placement = {}
    for _ in range(count):
        node = most_free(free, need)
        if node is None:
            return None
        free[node] = free[node] - need
        placement[node] = placement.get(node, 0) + 1
    return dict(sorted(placement.items()))


def busiest(placement):
    """The node where a job has the most workers (ties: the first name)."""
    held = [node for node, n in placement.items() if n > 0]
    return min(held, key=lambda node: (-placement[node], node), default=None)


def reserve(services, free):
    """Where the cluster's scheduler is expected to put the services' pending pods:
    services by priority (then bigger pods first, then name), each pod on the node with the
    least free CPU it fits in (best fit, ties by name). Returns (room: free minus those
    pods, placed: {service: pending pods that fit}, unplaced: [service per pod that does
    not fit], in that order)."""
    room = dict(free)
    placed = {}
    unplaced = []
    order = sorted(services, key=lambda s: (-s.priority, -s.pod.cpu, s.name))
    for service in order:
        placed[service.name] = 0
        left = max(0, service.demand - service.pods)
        if not left:
            continue
        # Best fit for equal pods fills the fitting node with the least free CPU until the
        # next pod no longer fits, then the next such node: one pass in (cpu, name) order.
        fitting = sorted((room[name].cpu, name) for name in room
                         if service.pod.fits_in(room[name]))
        for _, node in fitting:
            while left and service.pod.fits_in(room[node]):
                room[node] = room[node] - service.pod
                placed[service.name] += 1
                left -= 1
            if not left:
                break
        unplaced += [service] * left
    return room, placed, unplaced
