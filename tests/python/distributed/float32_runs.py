"""How far apart two float32 training runs that take the same steps may end, on any CPU.

A synchronous parameter-server job and one process on the union batches apply the same
SGD steps, but sum each step's gradient in another order (each trainer its share, then
the servers), and float32 rounds each order differently. Mostly that leaves the runs an
ulp or two apart. Now and then, though, a ReLU unit's input lies within rounding of 0 for
one sample: one run counts that sample's gradient through the unit and the other does
not, and every later step carries the difference on. Whether and when that happens
depends on the CPU's kernels, not on the job: W5 after 200 steps, one process on batches
in reverse order against the same batches in order, ends 3.5e-6 apart (max |difference|)
with AVX-512 kernels, 3e-8 with AVX2 kernels and 5.1e-5 with the portable ones. A bound on
the max |difference| measured on one CPU therefore fails on another.

What a wrong synchronous step does is much larger, and it moves every parameter the step
touched: in W5, a push lost or a step applied twice (at step 0, 100 or 199) leaves the
parameters 3.3e-3 to 5.0e-3 apart in L2 norm, 0.77 to 1.2 times the L2 norm of the last
step's update, while rounding, with the portable kernels' unit flip, leaves them 1.2e-4
apart: 0.028 times it (AVX-512: 0.0016). So the runs are compared in the L2 norm over all
parameters, against a tenth of the last step's update of the reference run: between the
two by a factor of at least 3.5 on each side, on every instruction set."""
import numpy as np

STEP_FRACTION = 0.1  # the bound, as a fraction of the L2 norm of the last step's update


def max_difference(a, b):
    """The largest |a - b| over the arrays of two {name: array} states."""
    return max(float(np.abs(np.asarray(a[k], np.float64) - b[k]).max()) for k in a)


def l2_difference(a, b):
    """The L2 norm of a - b over all arrays of two {name: array} states, in float64."""
    return float(np.sqrt(sum(float(np.square(np.asarray(a[k], np.float64) - b[k]).sum())
                             for k in a)))


def check_same_steps(got, want, want_before_last_step, label):
    """Asserts that state ``got`` ended where the reference run's ``want`` did, up to float32
    rounding of the same steps summed in another order (the bound above); the reference's
    state one step earlier gives the size of a step. Prints the figures under ``label``."""
    assert got.keys() == want.keys() == want_before_last_step.keys()
    difference = l2_difference(got, want)
    step = l2_difference(want, want_before_last_step)
    print(f"\n{label}: |difference| {difference:.3g} in L2 (max {max_difference(got, want):.3g}),"
          f" a tenth of the last step {STEP_FRACTION * step:.3g}")
    assert step > 0, "the reference's last step moved nothing: no bound can be derived"
    assert difference <= STEP_FRACTION * step, (
        f"{label}: the runs differ by {difference:.3g} in L2, more than float32 rounding "
        f"makes of the same steps ({STEP_FRACTION} of the last step's update, {step:.3g})")
