"""Peers for the int8 inference benchmark of W3's CNN: PyTorch and Paddle Inference, each in
float32 and in int8, built from one set of weights.

The network (NCHW, float32 input [batch, 1, 28, 28]):
    conv1 Conv2D(1 -> 32, 3x3, padding 1) + bias, relu, max pool 2x2 stride 2
    conv2 Conv2D(32 -> 64, 3x3, padding 1) + bias, relu, max pool 2x2 stride 2
    flatten, fc Linear(64*7*7 -> 10) + bias
Weights are a dict of numpy float32 arrays: conv1_w [32,1,3,3], conv1_b [32],
conv2_w [64,32,3,3], conv2_b [64], fc_w [3136,10] (in x out, Paddle's Linear layout), fc_b [10].

torch_cnn(weights, calibration) -> (float32 model, int8 model)
    Both nn.Modules in eval mode, called on a torch tensor; torch.set_num_threads(2).
    int8: eager-mode static post-training quantization with torch.ao.quantization.
    QuantStub/DeQuantStub around the network, conv1+relu1 and conv2+relu2 fused
    (fuse_modules), qconfig get_default_qconfig("x86") (or "fbgemm" where the x86 engine is
    missing): HistogramObserver activations (uint8, reduce_range) and per-channel symmetric
    int8 weights. prepare, run `calibration` ([n,1,28,28] float32) through it, convert. The
    int8 model runs quantized conv+relu, max pool and linear end to end.

paddle_cnn(weights, calibration, folder) -> (float32 predictor, int8 predictor)
    Both plain callables: numpy float32 [batch,1,28,28] in, numpy logits [batch,10] out.
    Each is a paddle.inference predictor on the CPU with 2 math threads and oneDNN
    (Config.enable_onednn()).
    float32: the paddle.nn network, paddle.jit.save(InputSpec [None,1,28,28] float32) into
    folder/f32 (Paddle 3's default PIR program, model.json), Config on it.
    int8: the same network saved again in the legacy ProgramDesc format (paddle.jit.save
    inside paddle.pir_utils.OldIrGuard, folder/f32_legacy/model.pdmodel), quantized with
    paddle.static.quantization.PostTrainingQuantization (algo "abs_max": activation scales
    are the calibration data's abs max; weight_quantize_type "channel_wise_abs_max";
    quantizable_op_type conv2d and matmul_v2; onnx_format=True, i.e. quantize_linear /
    dequantize_linear ops) and saved to folder/int8. Its predictor runs the legacy IR
    (Config.enable_new_ir(False)) with Config.enable_onednn_int8(), whose passes
    (quant_dequant_onednn_pass, cpu_quantize_placement/cpu_quantize/cpu_quantize_squash,
    params_quantization_onednn_pass ...) turn the Q/DQ pairs into oneDNN int8 kernels: on an
    AVX2-only CPU oneDNN's verbose log shows jit_uni_int8:avx2 convolutions, jit_int:avx2
    u8 max pools and a gemm_s8s8s32 inner product (its bias and the output in float32).
    Paddle writes each conv bias as reshape2 + elementwise_add(axis=-1), which
    conv_bias_onednn_fuse_pass rejects (it wants axis 1 or 3), so the bias add stays a
    separate oneDNN binary op in int8 (the bias itself reordered to s8 on every call), and
    relu runs in float32 between a dequantizing and a quantizing reorder: 20 oneDNN
    primitives per call. (Restricting enable_onednn_int8 to {conv2d, fused_conv2d, pool2d,
    fc} keeps the bias add and relu in float32 instead: 16 primitives, similar speed.)

Paddle int8 paths that do not work in Paddle 3.3.1 (and are therefore not used):
  - PIR (the default): the PIR oneDNN pass list has no int8 quantize passes; it starts with
    delete_quant_dequant_linear_op_pass and delete_weight_dequant_linear_op_pass, i.e. it
    strips the Q/DQ ops to run float32, and enable_onednn_int8() changes nothing (a float
    model gives identical logits with it). A model quantized with paddle.quantization.PTQ
    cannot even be saved as PIR with a dynamic batch: paddle.jit.save fails with
    "ValueError: (InvalidArgument) Each value of attribute 'shape' is expected to be no less
    than 0. But received: shape[0] = -1" (paddle/nn/quant/format.py creates a persistable
    value of the input's shape); with a fixed batch it saves, but create_predictor then
    fails (with or without oneDNN) in constant_folding_pass on a pd_op.cast with
    "PreconditionNotMetError: Tensor holds no memory".
  - paddle.quantization.PTQ (AbsmaxObserver for activations and weights) saved in the
    legacy format: Paddle Inference runs it, but with enable_onednn_int8() the logits are
    wrong (max abs difference ~33 against logits of magnitude ~10, even when only pool2d is
    placed in int8); without int8 it simulates the quantization correctly (max difference
    ~0.2). Its program differs from PostTrainingQuantization's in keeping float weights
    with per-tensor 0-d scales and float zero points (PostTrainingQuantization stores int8
    weights with [1, C] scales and int32 zero points), which may be what the oneDNN passes
    mishandle.
"""
import copy
import os

import numpy as np

THREADS = 2
CALIBRATION_BATCH = 16
INPUT_SHAPE = [1, 28, 28]


def _batches(calibration, size=CALIBRATION_BATCH):
    calibration = np.ascontiguousarray(calibration, dtype=np.float32)
    return [calibration[i:i + size] for i in range(0, len(calibration), size)]


# ---------------------------------------------------------------------------- PyTorch

def torch_cnn(weights, calibration):
    """(float32 model, int8 model): nn.Modules in eval mode, called on a torch tensor."""
    import torch
    import torch.ao.quantization as tq
    from torch import nn

    torch.set_num_threads(THREADS)

    class Cnn(nn.Module):
        def __init__(self):
            super().__init__()
            self.quant = tq.QuantStub()  # identity until the model is converted
            self.conv1 = nn.Conv2d(1, 32, 3, padding=1)
            self.relu1 = nn.ReLU()
            self.pool1 = nn.MaxPool2d(2, 2)
            self.conv2 = nn.Conv2d(32, 64, 3, padding=1)
            self.relu2 = nn.ReLU()
            self.pool2 = nn.MaxPool2d(2, 2)
            self.flatten = nn.Flatten()
            self.fc = nn.Linear(64 * 7 * 7, 10)
            self.dequant = tq.DeQuantStub()

        def forward(self, x):
            x = self.quant(x)
            x = self.pool1(self.relu1(self.conv1(x)))
            x = self.pool2(self.relu2(self.conv2(x)))
            return self.dequant(self.fc(self.flatten(x)))

    model = Cnn()
    with torch.no_grad():
        for layer, name in ((model.conv1, "conv1"), (model.conv2, "conv2")):
            layer.weight.copy_(torch.from_numpy(weights[name + "_w"]))
            layer.bias.copy_(torch.from_numpy(weights[name + "_b"]))
        model.fc.weight.copy_(torch.from_numpy(np.ascontiguousarray(weights["fc_w"].T)))
        model.fc.bias.copy_(torch.from_numpy(weights["fc_b"]))
    model.eval().requires_grad_(False)

    engines = torch.backends.quantized.supported_engines
    engine = "x86" if "x86" in engines else "fbgemm"
    torch.backends.quantized.engine = engine
    int8 = copy.deepcopy(model)
    int8.qconfig = tq.get_default_qconfig(engine)
    tq.fuse_modules(int8, [["conv1", "relu1"], ["conv2", "relu2"]], inplace=True)
    tq.prepare(int8, inplace=True)
    with torch.no_grad():
        for batch in _batches(calibration):
            int8(torch.from_numpy(batch))
    tq.convert(int8, inplace=True)
    return model, int8.eval()


# ----------------------------------------------------------------------------- Paddle

def _paddle_net(weights):
    import paddle
    from paddle import nn

    class Cnn(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2D(1, 32, 3, padding=1)
            self.relu1 = nn.ReLU()
            self.pool1 = nn.MaxPool2D(2, 2)
            self.conv2 = nn.Conv2D(32, 64, 3, padding=1)
            self.relu2 = nn.ReLU()
            self.pool2 = nn.MaxPool2D(2, 2)
            self.flatten = nn.Flatten()
            self.fc = nn.Linear(64 * 7 * 7, 10)

        def forward(self, x):
            x = self.pool1(self.relu1(self.conv1(x)))
            x = self.pool2(self.relu2(self.conv2(x)))
            return self.fc(self.flatten(x))

    paddle.set_device("cpu")
    model = Cnn()
    for layer, name in ((model.conv1, "conv1"), (model.conv2, "conv2"), (model.fc, "fc")):
        layer.weight.set_value(weights[name + "_w"])
        layer.bias.set_value(weights[name + "_b"])
    model.eval()
    return model, paddle


class PaddlePredictor:
    """A paddle.inference predictor as a function: numpy float32 in, numpy logits out."""

    def __init__(self, prefix, int8=False):
        from paddle import inference

        model_file = prefix + ".json" if os.path.exists(prefix + ".json") else prefix + ".pdmodel"
        config = inference.Config(model_file, prefix + ".pdiparams")
        config.disable_gpu()
        config.set_cpu_math_library_num_threads(THREADS)
        config.enable_onednn()
        if int8:
            # oneDNN int8 passes exist only in the legacy IR (see the module docstring).
            config.enable_new_ir(False)
            config.enable_onednn_int8()
        config.disable_glog_info()
        self.predictor = inference.create_predictor(config)
        self.input = self.predictor.get_input_handle(self.predictor.get_input_names()[0])
        self.output = self.predictor.get_output_handle(self.predictor.get_output_names()[0])

    def __call__(self, x):
        x = np.ascontiguousarray(x, dtype=np.float32)
        self.input.reshape(list(x.shape))
        self.input.copy_from_cpu(x)
        self.predictor.run()
        return self.output.copy_to_cpu()


def _paddle_quantize(model, paddle, calibration, folder):
    """PostTrainingQuantization of `model` saved in the legacy format; returns the prefix."""
    from paddle.static.quantization import PostTrainingQuantization

    spec = [paddle.static.InputSpec([None] + INPUT_SHAPE, "float32", "x")]
    legacy_dir = os.path.join(folder, "f32_legacy")
    int8_dir = os.path.join(folder, "int8")
    batches = _batches(calibration)
    with paddle.pir_utils.OldIrGuard(), paddle.static.scope_guard(paddle.static.Scope()):
        paddle.jit.save(model, os.path.join(legacy_dir, "model"), input_spec=spec)
        ptq = PostTrainingQuantization(
            executor=paddle.static.Executor(paddle.CPUPlace()),
            model_dir=legacy_dir,
            model_filename="model.pdmodel",
            params_filename="model.pdiparams",
            data_loader=lambda: ({"x": batch} for batch in batches),
            batch_nums=len(batches),
            algo="abs_max",
            quantizable_op_type=["conv2d", "matmul_v2"],
            weight_quantize_type="channel_wise_abs_max",
            onnx_format=True,
        )
        ptq.quantize()
        ptq.save_quantized_model(int8_dir, model_filename="model.pdmodel",
                                 params_filename="model.pdiparams")
    return os.path.join(int8_dir, "model")


def paddle_cnn(weights, calibration, folder):
    """(float32 predictor, int8 predictor): callables from numpy float32 to numpy logits."""
    model, paddle = _paddle_net(weights)
    f32_prefix = os.path.join(folder, "f32", "model")
    spec = [paddle.static.InputSpec([None] + INPUT_SHAPE, "float32", "x")]
    paddle.jit.save(model, f32_prefix, input_spec=spec)
    int8_prefix = _paddle_quantize(model, paddle, calibration, folder)
    return PaddlePredictor(f32_prefix), PaddlePredictor(int8_prefix, int8=True)
