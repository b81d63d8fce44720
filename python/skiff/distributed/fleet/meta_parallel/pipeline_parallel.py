"""Pipeline-parallel training (Paddle's fleet.meta_parallel.PipelineParallel): each stage of
a PipelineLayer on its own rank, the batch cut into micro-batches that flow through the
stages, activations forward and their gradients back between neighbours.

    strategy.hybrid_configs = {"pp_degree": 2}
    strategy.pipeline_configs = {"accumulate_steps": 4, "micro_batch_size": 2}
    fleet.init(is_collective=True, strategy=strategy)
    model = PipelineParallel(PipelineLayer(descs, num_stages=2, loss_fn=loss),
                             fleet.get_hybrid_communicate_group(), strategy)
    opt = skiff.optimizer.SGD(0.1, parameters=model.parameters())
    loss = model.train_batch([inputs, labels], opt)   # the batch: 4 x 2 samples

Schedules: "1F1B" (stage s runs stages - s - 1 forwards, then alternates one forward
and one backward, then runs the backwards left: at most stages - s micro-batches'
activations held) and "FThenB" (every forward, then every backward). Either way the
gradients are those of the mean loss over the micro-batches, exactly as one process
computes them on the whole batch. ``last_timings`` tells how a stage spent the last
batch: the seconds computing (busy) and waiting on its neighbours (idle), whose share is
the pipeline's bubble, (stages - 1) / (micro-batches + stages - 1) for 1F1B when every
stage takes as long.
"""
import contextlib
import time

from ....autograd import backward as autograd_backward
from ....framework.grad_mode import no_grad
from ....nn import Layer
from ....tensor.creation import to_tensor, zeros, zeros_like
from ... import collective
from ...parallel import sync_params_buffers
from .p2p import (TensorMeta, as_tuple, gradients_of, recv_meta, recv_tensors, send_meta,
                  send_tensors)
from .pipeline_layer import PipelineLayer

__all__ = ["PipelineParallel", "StageTimings"]


class StageTimings:
    """The seconds a stage spent in each phase of one batch: forward and backward
    (computing), wait (sending to and receiving from its neighbours, blocked until they
    are ready), reduce (the loss broadcast and gradient all-reduces) and step."""

    PHASES = ("forward", "backward", "wait", "reduce", "step")

    def __init__(self):
        self.seconds = dict.fromkeys(self.PHASES, 0.0)

    @contextlib.contextmanager
    def measure(self, phase):
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] += time.perf_counter() - start

    def summary(self):
        """The phases' seconds with busy (forward + backward), idle (wait) and
        bubble_fraction: idle / (busy + idle)."""
        busy = self.seconds["forward"] + self.seconds["backward"]
        idle = self.seconds["wait"]
        return dict(self.seconds, busy=busy, idle=idle,
                    bubble_fraction=idle / (busy + idle) if busy + idle else 0.0)


class PipelineParallel(Layer):
    """Trains a PipelineLayer over the pipe group of ``hcg`` with the accumulate_steps,
    micro_batch_size and schedule_mode of ``strategy.pipeline_configs``. With data
    parallelism too, every data-parallel rank takes its own batch and the gradients are
    averaged over them before the step."""

    def __init__(self, layers, hcg, strategy):
        super().__init__()
        if not isinstance(layers, PipelineLayer):
            raise TypeError(f"PipelineParallel: layers must be a PipelineLayer, got "
                            f"{type(layers).__name__}")
        self._layers = layers
        self._hcg = hcg
        configs = strategy.pipeline_configs
        self.accumulate_steps = configs["accumulate_steps"]
        self.micro_batch_size = configs["micro_batch_size"]
        self.schedule_mode = configs["schedule_mode"]
        self.num_stages = hcg.get_pipe_parallel_world_size()
        self.stage_id = hcg.get_stage_id()
        if (layers.get_num_stages(), layers.get_stage_id()) != (self.num_stages, self.stage_id):
            raise ValueError(f"PipelineParallel: the PipelineLayer is stage "
                             f"{layers.get_stage_id()} of {layers.get_num_stages()}, but the "
                             f"hybrid group puts this rank at stage {self.stage_id} of "
                             f"{self.num_stages}")
        self.is_first_stage = self.stage_id == 0
        self.is_last_stage = self.stage_id == self.num_stages - 1
        self._pp_group = hcg.get_pipe_parallel_group()
        self._prev = None if self.is_first_stage else hcg.get_rank_from_stage(self.stage_id - 1)
        self._next = None if self.is_last_stage else hcg.get_rank_from_stage(self.stage_id + 1)
        self._dp_group = hcg.get_data_parallel_group()
        if self._dp_group.nranks > 1:
            sync_params_buffers(layers, self._dp_group, hcg.get_data_parallel_group_src_rank())
        self.last_timings = None

    def forward(self, *inputs):
        return self._layers(*inputs)

    # ---- the batch -------------------------------------------------------------
    def train_batch(self, data, optimizer, lr_scheduler=None, scaler=None):
        """One optimizer step on ``data`` = [inputs, labels] (this data-parallel rank's
        batch of accumulate_steps x micro_batch_size samples; the first stage reads the
        inputs, the last the labels). Returns the mean loss over the micro-batches on
        every stage, as a float64 scalar."""
        self._layers.train()
        self._begin(data, "train_batch", compute_loss=True, training=True, scaler=scaler)
        if self.schedule_mode == "1F1B":
            self._one_forward_one_backward()
        else:
            self._forwards_then_backwards()
        loss = self._broadcast_loss()
        with self._timings.measure("reduce"):
            self._layers.allreduce_shared_weight_gradients()
            self._average_data_parallel_gradients()
        with self._timings.measure("step"):
            self._step(optimizer, scaler)
            if lr_scheduler is not None:
                lr_scheduler.step()
        self.last_timings = self._timings.summary()
        return loss

    def eval_batch(self, data, compute_loss=True):
        """The forwards of ``data`` = [inputs, labels] without gradients: the mean loss on
        every stage (as train_batch), or with ``compute_loss`` False the last stage's
        outputs, one per micro-batch (None on the other stages)."""
        self._layers.eval()
        self._begin(data, "eval_batch", compute_loss=compute_loss, training=False)
        with no_grad():
            for i in range(self.accumulate_steps):
                self._send_forward(self._forward_step(self._recv_forward(i), i), i)
        self.last_timings = self._timings.summary()
        if compute_loss:
            return self._broadcast_loss()
        return self._outputs if self.is_last_stage else None

    def _begin(self, data, what, compute_loss, training, scaler=None):
        """Checks the batch (on every stage it is given to, before any message, so all
        stages fail alike) and starts the batch's state."""
        if not isinstance(data, (list, tuple)) or len(data) != 2:
            got = f"{len(data)} items" if isinstance(data, (list, tuple)) else \
                type(data).__name__
            raise ValueError(f"PipelineParallel.{what}: data must be [inputs, labels], got "
                             f"{got}")
        inputs, labels = data
        if self.is_first_stage and inputs is None:
            raise ValueError(f"PipelineParallel.{what}: the first stage needs the inputs")
        if self.is_last_stage and compute_loss:
            if labels is None:
                raise ValueError(f"PipelineParallel.{what}: the last stage needs the labels "
                                 f"to compute the loss")
            if self._layers._loss_fn is None:
                raise ValueError(f"PipelineParallel.{what}: the PipelineLayer has no loss_fn "
                                 f"for the last stage")
        self._inputs = self._micro_batches(inputs, what, "inputs")
        self._labels = self._micro_batches(labels, what, "labels")
        self._compute_loss = compute_loss
        self._training = training
        self._scaler = scaler
        self._timings = StageTimings()
        self._stash = []         # (inputs, outputs) of the micro-batches awaiting backward
        self._outputs = []       # the last stage's outputs when no loss is computed
        self._loss_sum = None
        self._sent_metas = None  # what this stage sends forward in this batch
        self._recv_metas = None  # what it receives

    def _micro_batches(self, value, what, name):
        """``value`` (a Tensor or a tuple of them, batch first) cut into accumulate_steps
        micro-batches (None stays None)."""
        if value is None:
            return None
        items = as_tuple(tuple(value) if isinstance(value, list) else value, f"{what} {name}")
        m, size = self.accumulate_steps, self.micro_batch_size
        for t in items:
            rows = t.shape[0] if t.shape else 0
            if rows != m * size:
                raise ValueError(f"PipelineParallel.{what}: the {name} have {rows} samples, "
                                 f"not accumulate_steps {m} x micro_batch_size {size} = "
                                 f"{m * size}")
        parts = [tuple(t[i * size:(i + 1) * size] for t in items) for i in range(m)]
        return parts if len(items) > 1 else [p[0] for p in parts]

    # ---- the schedules ---------------------------------------------------------
    # A send blocks until the neighbour receives, so on the link between stages s and
    # s + 1 both post their messages in the same order: in 1F1B's steady phase stage s
    # sends forward then receives a gradient, and stage s + 1 receives its next input
    # before it sends that gradient back.
    def _one_forward_one_backward(self):
        m = self.accumulate_steps
        warmup = min(self.num_stages - self.stage_id - 1, m)
        for i in range(warmup):
            self._send_forward(self._forward_step(self._recv_forward(i), i), i)
        x = self._recv_forward(warmup) if warmup < m else None
        for i in range(warmup, m):
            self._send_forward(self._forward_step(x, i), i)
            grads = self._backward_step(self._recv_backward())
            x = self._recv_forward(i + 1) if i + 1 < m else None
            self._send_backward(grads)
        for _ in range(warmup):
            self._send_backward(self._backward_step(self._recv_backward()))

    def _forwards_then_backwards(self):
        for i in range(self.accumulate_steps):
            self._send_forward(self._forward_step(self._recv_forward(i), i), i)
        for _ in range(self.accumulate_steps):
            self._send_backward(self._backward_step(self._recv_backward()))

    # ---- one micro-batch -------------------------------------------------------
    def _forward_step(self, inputs, i):
        with self._timings.measure("forward"):
            out = self._layers(inputs)
            if self.is_last_stage:
                if not self._compute_loss:
                    self._outputs.append(out)
                    return out
                loss = self._layers._loss_fn(out, self._labels[i])
                if loss.size != 1:
                    raise ValueError(f"PipelineParallel: loss_fn must return one value, got "
                                     f"a tensor of shape {loss.shape}")
                loss = loss.reshape([])
                self._loss_sum = loss.detach() if self._loss_sum is None \
                    else self._loss_sum + loss.detach()
                out = loss / self.accumulate_steps
                if self._scaler is not None:
                    out = self._scaler.scale(out)
            if self._training:
                self._stash.append((inputs, out))
        return out

    def _backward_step(self, output_grads):
        """Backward of the oldest micro-batch held; the gradients of its inputs (None on
        the first stage)."""
        inputs, outputs = self._stash.pop(0)
        with self._timings.measure("backward"):
            if self.is_last_stage:
                autograd_backward([outputs])
            else:
                sent = [t for t in as_tuple(outputs, "a stage's output") if not t.stop_gradient]
                autograd_backward(sent, output_grads)
            if self.is_first_stage:
                return None
            return gradients_of(as_tuple(inputs, "a stage's input"))

    # ---- between the stages ----------------------------------------------------
    def _recv_forward(self, i):
        if self.is_first_stage:
            return self._inputs[i]
        with self._timings.measure("wait"):
            if i == 0:
                self._recv_metas = recv_meta(self._prev, self._pp_group)
            tensors = recv_tensors(self._recv_metas, self._prev, self._pp_group,
                                   requires_grad=self._training)
        return tuple(tensors) if len(tensors) > 1 else tensors[0]

    def _send_forward(self, output, i):
        if self.is_last_stage:
            return
        tensors = as_tuple(output, "a stage's output")
        with self._timings.measure("wait"):
            if i == 0:
                self._sent_metas = [TensorMeta.of(t) for t in tensors]
                send_meta(self._sent_metas, self._next, self._pp_group)
            send_tensors(tensors, self._next, self._pp_group)

    def _recv_backward(self):
        if self.is_last_stage:
            return None
        with self._timings.measure("wait"):
            metas = [m for m in self._sent_metas if m.differentiable]
            return recv_tensors(metas, self._next, self._pp_group, requires_grad=False)

    def _send_backward(self, grads):
        if self.is_first_stage:
            return
        with self._timings.measure("wait"):
            send_tensors(grads, self._prev, self._pp_group)

    # ---- after the schedule ----------------------------------------------------
    def _broadcast_loss(self):
        """The last stage's mean loss over the micro-batches, on every stage."""
        with self._timings.measure("reduce"):
            if self.is_last_stage:
                value = (self._loss_sum / self.accumulate_steps).astype("float64").reshape([1])
            else:
                value = zeros([1], dtype="float64")
            last = self._hcg.get_rank_from_stage(self.num_stages - 1)
            collective.broadcast(value, last, self._pp_group)
        return value.reshape([])

    def _average_data_parallel_gradients(self):
        if self._dp_group.nranks == 1:
            return
        for p in self._layers.parameters():
            if p.stop_gradient:
                continue
            if p.grad is None:
                p.grad = zeros_like(p)
            collective.all_reduce(p.grad, collective.ReduceOp.AVG, self._dp_group)

    def _step(self, optimizer, scaler):
        """optimizer.step(), through ``scaler`` when given: the step is skipped on every
        stage when any stage's gradients hold inf or NaN."""
        if scaler is None or not scaler.is_enable():
            optimizer.step()
        else:
            scaler.unscale_(optimizer)
            found = to_tensor([1.0 if scaler._found_inf else 0.0], dtype="float64")
            collective.all_reduce(found, collective.ReduceOp.MAX,
                                  self._hcg.get_check_parallel_group())
            scaler._found_inf = bool(found.numpy()[0])
            scaler.step(optimizer)
            scaler.update()
        optimizer.clear_grad()
