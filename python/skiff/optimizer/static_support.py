"""What the optimizers need from static mode (skiff.static): persistable variables
initialised by the startup program, the learning-rate variable the program reads, and
minimize(). The learning rate is a persistable [1] float32 variable; with an
LRScheduler the program records it (``program.lr_scheduler``, the variable's name in
``scheduler._var_name``) so the executor writes ``scheduler()`` into it before each run:
stepping the scheduler changes the rate without rebuilding the program."""
import numpy as np


def _static():
    from .. import static
    return static


def create_global_var(name, shape, value, dtype):
    """A persistable variable of the main program set to ``value`` by the startup program."""
    return _static().create_global_var(shape=list(shape), value=float(value), dtype=dtype,
                                       persistable=True, name=name)


def learning_rate_var(optimizer):
    """The current program's learning-rate variable of ``optimizer`` (created once)."""
    from .lr import LRScheduler
    from .optimizer import _unique_name
    static = _static()
    program = static.default_main_program()
    entry = optimizer._static_lr.get(id(program))
    if entry is not None:
        return entry[1]
    name = _unique_name("learning_rate")
    var = create_global_var(name, [1], optimizer.get_lr(), "float32")
    if isinstance(optimizer._learning_rate, LRScheduler):
        optimizer._learning_rate._var_name = name
        program.lr_scheduler = optimizer._learning_rate
    optimizer._static_lr[id(program)] = (program, var)
    return var


def set_value(var, value):
    """Writes a float into a persistable [1] variable of the global scope (set_lr)."""
    static = _static()
    static.global_scope().set(var.name, np.array([value], dtype=np.float32))


def append_backward(loss, parameters, no_grad_set):
    return _static().append_backward(loss, parameter_list=parameters, no_grad_set=no_grad_set)


def minimize(optimizer, loss, startup_program, parameters, no_grad_set):
    """Appends loss's backward pass and ``optimizer``'s updates to loss's program (the
    accumulators' initialisation to ``startup_program``, default: the current one);
    returns (the appended update ops, [(param, grad)])."""
    static = _static()
    main = loss.block.program
    startup = startup_program or static.default_startup_program()
    with static.program_guard(main, startup):
        params_grads = append_backward(loss, parameters, no_grad_set)
        first = len(main.global_block().ops)
        optimizer.apply_gradients(params_grads)
    return list(main.global_block().ops[first:]), params_grads
