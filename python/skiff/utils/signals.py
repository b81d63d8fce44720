"""disable_signal_handler (Paddle's paddle.disable_signal_handler). Paddle installs its
own handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT and SIGTERM at import to print a
C++ stack, and this removes them so that another framework's handlers can take over.
skiff installs no signal handlers, so the process's handlers are already its own."""

__all__ = ["disable_signal_handler"]


def disable_signal_handler():
    """Leaves the process's signal handlers to others: skiff installs none, so there is
    none of its own to remove; the handlers now in place stay as they are."""
    return None
