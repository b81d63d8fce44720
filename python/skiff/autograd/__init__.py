"""Gradients in eager mode (paddle.autograd): skiff.grad, backward, the grad-mode
switches, PyLayer (user-written backwards), saved_tensors_hooks, jacobian and hessian."""
from ..framework.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .eager_grad import backward, grad
from .jacobian import Hessian, Jacobian, hessian, jacobian
from .py_layer import Function, PyLayer, PyLayerContext, saved_tensors_hooks

__all__ = ["grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "backward",
           "jacobian", "hessian", "Jacobian", "Hessian", "PyLayer", "PyLayerContext", "Function",
           "saved_tensors_hooks"]
