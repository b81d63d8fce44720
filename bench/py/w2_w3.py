"""W2 (MLP 784-512-512-10, Adam, softmax cross-entropy, batch 64) and W3 (the CNN, SGD
momentum 0.9, batch 64) trained eagerly in skiff from Python: bench/peers.py's PaddlePaddle
training code run unchanged with skiff as its `paddle` module (skiff.nn layers,
skiff.optimizer, eager backward), from the same parameter values and batch as the C++
programs and the peers; timed the same way (median of the reps, each STEPS steps, after two
warm-up reps).

Prints "RESULT skiff_py <ms per step>" and "LOSS skiff_py <first step> <step 5>".

With --same-process the eager step alternates, rep by rep in this one process, with the
same network built by the same code in static mode and run as a program by the interpreter
(`skiff.static.Executor`); prints "RESULT skiff_py_program <ms>" too. Processes on this
shared machine drift apart by more than the difference measured, so this is the comparison
of eager overhead that noise does not swamp.

    SKIFF_BUILD_DIR=build .venv/bin/python bench/py/w2_w3.py --workload w3 [--reps 7]
                                                              [--same-process]
"""

import argparse
import statistics
import time

import harness
import peers


def eager_step(skiff, workload):
    """One eager training step of the peer's Paddle code, run by skiff."""
    F = skiff.nn.functional
    params = peers.mlp_params() if workload == "w2" else peers.cnn_params()
    model = peers.paddle_model(workload, params, skiff)
    opt = peers.paddle_optimizer(workload, skiff, model.parameters())
    x, y = (skiff.to_tensor(v) for v in peers.image_batch(peers.IMAGE_SHAPES[workload]))

    def step():
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        opt.clear_grad()
    return step


def program_step(skiff, workload):
    """One training step of the same network as a static program run by the interpreter
    (parameters from the startup program: the time does not depend on their values)."""
    shape = peers.IMAGE_SHAPES[workload]
    xv, yv = peers.image_batch(shape)
    skiff.enable_static()
    try:
        main, startup = skiff.static.Program(), skiff.static.Program()
        with skiff.static.program_guard(main, startup):
            x = skiff.static.data("x", [-1] + shape[1:], "float32")
            y = skiff.static.data("y", [-1] + list(yv.shape[1:]), "int64")
            model = peers.paddle_model(workload, None, skiff)
            loss = skiff.nn.functional.cross_entropy(model(x), y)
            peers.paddle_optimizer(workload, skiff).minimize(loss)
        exe = skiff.static.Executor()
        exe.run(startup)
    finally:
        skiff.disable_static()
    feed = {"x": xv, "y": yv}

    def step():
        skiff.enable_static()
        try:
            exe.run(main, feed=feed, fetch_list=[loss])
        finally:
            skiff.disable_static()
    return step


def same_process(skiff, workload, reps):
    """Median ms per step of the eager and the program step, timed in alternating reps."""
    steps = peers.STEPS[workload]
    runs = {"skiff_py": eager_step(skiff, workload),
            "skiff_py_program": program_step(skiff, workload)}
    times = {name: [] for name in runs}
    for rep in range(reps + 2):  # the first two reps warm up
        for name, step in runs.items():
            t0 = time.perf_counter()
            for _ in range(steps):
                step()
            if rep >= 2:
                times[name].append((time.perf_counter() - t0) * 1e3 / steps)
    return {name: statistics.median(t) for name, t in times.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", required=True, choices=["w2", "w3"])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--same-process", action="store_true",
                    help="also time the same network as a program, alternating in this process")
    args = ap.parse_args()
    skiff = harness.import_skiff()
    out = peers.run_paddle(args.workload, max(5, args.reps), False, paddle=skiff)
    harness.print_result("skiff_py", out["ms"], loss=out["loss"])
    if args.same_process:
        for name, ms in same_process(skiff, args.workload, max(5, args.reps)).items():
            harness.print_result(name + "_alternating" if name == "skiff_py" else name, ms)


if __name__ == "__main__":
    main()
