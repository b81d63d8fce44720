"""A run's utilisation over time (and its services' demand and pods) as a PNG."""

__all__ = ["plot_run"]


def plot_run(run, path, title=""):
    """Writes ``path``: the share of the cluster's CPU (or GPUs) in use over time, and the
    services' demand and placed pods on a second axis when there are services."""
    import matplotlib  # noqa: PLC0415  (a heavy optional dependency: requirements/simulate.txt)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415  (with matplotlib)

    total = run.nodes[0].capacity if run.nodes else None
    cpu = sum(n.capacity.cpu for n in run.nodes)
    gpu = sum(n.capacity.gpu for n in run.nodes)
    times = [t for t, *_ in run.timeline] + [run.end]
    field, capacity, label = ("gpu", gpu, "GPUs in use") if gpu else ("cpu", cpu, "CPU in use")
    used = [getattr(u, field) / capacity for _, u, _, _ in run.timeline]
    fig, ax = plt.subplots(figsize=(9, 4), dpi=100)
    ax.step(times, used + used[-1:], where="post", color="tab:blue", label=label)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("share of the cluster")
    if run.services and total is not None:
        other = ax.twinx()
        demand = [d for _, _, d, _ in run.timeline]
        pods = [p for _, _, _, p in run.timeline]
        other.step(times, demand + demand[-1:], where="post", color="tab:red",
                   linestyle="--", label="service demand (pods)")
        other.step(times, pods + pods[-1:], where="post", color="tab:orange",
                   label="service pods placed")
        other.set_ylabel("pods")
        other.set_ylim(0, max(demand + [1]) * 1.1)
        other.legend(loc="lower right")
    ax.legend(loc="lower left")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
