"""What the optimizers need from static mode (skiff.static): persistable variables
initialised by the startup program, the learning-rate variable the program reads, and
minimize(). The learning rate is a persistable [1] float32 variable. With an
LRScheduler the program records it (``program.lr_scheduler``) and the executor writes,
before each run, what ``scheduler._program_input()`` names: for a schedule that is a
closed form of the step, the program computes the rate with the schedule's op from a
persistable int64 step counter (``scheduler._step_var_name``) and the executor writes
``last_epoch`` into the counter, so a saved program carries its schedule; for a
host-side schedule (LambdaDecay, MultiplicativeDecay, ReduceOnPlateau) it writes
``scheduler()`` into the rate variable (``scheduler._var_name``). Either way stepping
the scheduler changes the rate without rebuilding the program."""
import numpy as np

from ..framework import backward, building, program as programs
from ..framework.scope import global_scope
from .lr_scheduler import LRScheduler

_name_counts = {}


def unique_name(prefix):
    """prefix_0, prefix_1, ... (Paddle's accumulator naming)."""
    n = _name_counts.get(prefix, 0)
    _name_counts[prefix] = n + 1
    return f"{prefix}_{n}"


def create_global_var(name, shape, value, dtype):
    """A persistable variable of the main program set to ``value`` by the startup program."""
    return building.create_global_var(shape=list(shape), value=float(value), dtype=dtype,
                                      persistable=True, name=name)


def learning_rate_var(optimizer):
    """The current program's learning-rate variable of ``optimizer`` (created once)."""
    program = programs.default_main_program()
    entry = optimizer._static_lr.get(id(program))
    if entry is not None:
        return entry[1]
    name = unique_name("learning_rate")
    var = create_global_var(name, [1], optimizer.get_lr(), "float32")
    scheduler = optimizer._learning_rate
    if isinstance(scheduler, LRScheduler):
        scheduler._var_name = name
        scheduler._step_var_name = None
        if scheduler._has_lr_op():
            step = create_global_var(unique_name("learning_rate_step"), [1],
                                     max(scheduler.last_epoch, 0), "int64")
            scheduler._append_lr_ops(step, var)
            scheduler._step_var_name = step.name
        program.lr_scheduler = scheduler
    optimizer._static_lr[id(program)] = (program, var)
    return var


def set_value(var, value):
    """Writes a float into a persistable [1] variable of the global scope (set_lr)."""
    global_scope().set(var.name, np.array([value], dtype=np.float32))


def append_backward(loss, parameters, no_grad_set):
    return backward.append_backward(loss, parameter_list=parameters, no_grad_set=no_grad_set)


def minimize(optimizer, loss, startup_program, parameters, no_grad_set):
    """Appends loss's backward pass and ``optimizer``'s updates to loss's program (the
    accumulators' initialisation to ``startup_program``, default: the current one);
    returns (the appended update ops, [(param, grad)])."""
    main = loss.block.program
    startup = startup_program or programs.default_startup_program()
    with programs.program_guard(main, startup):
        params_grads = append_backward(loss, parameters, no_grad_set)
        first = len(main.global_block().ops)
        optimizer.apply_gradients(params_grads)
    return list(main.global_block().ops[first:]), params_grads
