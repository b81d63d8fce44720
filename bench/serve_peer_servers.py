"""The peers of bench/serve_peers.py: W6's MLP and W3's CNN in PyTorch (bench/peers.py's
networks and parameter values, CPU, 2 threads) behind Triton as PyTriton runs it (PyPI
nvidia-pytriton: its own tritonserver binary, the model in this process behind Triton's
Python backend) and behind KServe's Python model server (a kserve.Model, its v2 REST
endpoint); and the same networks in Paddle Inference (paddle.jit.save, then
paddle.inference.create_predictor) behind the same KServe server. Run with the python of
.venv-serve-peers (bench/serve_peers_setup.sh):

    .venv-serve-peers/bin/python bench/serve_peer_servers.py triton --http-port P \
        --grpc-port G --metrics-port M
    .venv-serve-peers/bin/python bench/serve_peer_servers.py kserve --http-port P
    .venv-serve-peers/bin/python bench/serve_peer_servers.py kserve_paddle --http-port P

Both listen on 127.0.0.1 only and serve until SIGTERM or SIGINT. Models (the names skiff's
repository uses too): `mlp`, `cnn`: one request at a time (Triton: max_batch_size 16, no
dynamic batcher); Triton also `mlp_batched`, `cnn_batched`: max_batch_size 16 and a dynamic
batcher waiting at most QUEUE_DELAY_US. KServe's model server has no batcher of its own (in
a cluster it is a sidecar), so its `mlp` and `cnn` take every load. Output: `logits` [1, 10].
"""
import argparse
import os
import signal
import sys
import sysconfig

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

LOOPBACK = "127.0.0.1"
THREADS = 2
MAX_BATCH = 16
QUEUE_DELAY_US = 500
# name: (bench/peers.py workload, input name, input shape without the batch dim)
MODELS = {"mlp": ("w2", "x", [784]), "cnn": ("w3", "image", [1, 28, 28])}


def torch_networks():
    """{name: function from a numpy float32 batch to numpy logits}, PyTorch on the CPU."""
    import torch
    from peers import cnn_params, mlp_params, torch_model

    torch.set_num_threads(THREADS)
    params = {"w2": mlp_params(), "w3": cnn_params()}
    functions = {}
    for name, (workload, _, _) in MODELS.items():
        net = torch_model(workload, params[workload]).eval()

        def run(x, net=net):
            with torch.inference_mode():
                return net(torch.from_numpy(x)).numpy()
        functions[name] = run
    return functions


def paddle_networks():
    """{name: function from a numpy float32 batch to numpy logits}, Paddle Inference on the
    CPU: each network saved with paddle.jit.save and loaded by a predictor."""
    import tempfile
    import threading

    import numpy as np
    import paddle
    from paddle import inference
    from peers import cnn_params, mlp_params, paddle_model

    paddle.set_device("cpu")
    params = {"w2": mlp_params(), "w3": cnn_params()}
    folder = tempfile.mkdtemp(prefix="serve_paddle_")
    functions = {}
    for name, (workload, input_name, shape) in MODELS.items():
        net = paddle_model(workload, params[workload])
        net.eval()
        prefix = os.path.join(folder, name)
        paddle.jit.save(net, prefix, input_spec=[
            paddle.static.InputSpec([None, *shape], "float32", input_name)])
        model_file = prefix + (".json" if os.path.exists(prefix + ".json") else ".pdmodel")
        config = inference.Config(model_file, prefix + ".pdiparams")
        config.disable_gpu()
        config.set_cpu_math_library_num_threads(THREADS)
        config.disable_glog_info()
        predictor = inference.create_predictor(config)
        handle_in = predictor.get_input_handle(predictor.get_input_names()[0])
        handle_out = predictor.get_output_handle(predictor.get_output_names()[0])
        lock = threading.Lock()  # a predictor runs one batch at a time

        def run(x, predictor=predictor, handle_in=handle_in, handle_out=handle_out,
                lock=lock):
            with lock:
                handle_in.copy_from_cpu(np.ascontiguousarray(x))
                predictor.run()
                return handle_out.copy_to_cpu()
        functions[name] = run
    return functions


def serve_triton(args, functions):
    import numpy as np
    from pytriton.model_config import DynamicBatcher, ModelConfig, Tensor
    from pytriton.triton import Triton, TritonConfig

    # Triton's Python backend stub embeds the libpython3.X.so.1.0 the loader finds first; it
    # must be this interpreter's, whose standard library the stub imports.
    libdir = sysconfig.get_config_var("LIBDIR")
    if libdir and os.path.exists(os.path.join(libdir, sysconfig.get_config_var("INSTSONAME"))):
        os.environ["LD_LIBRARY_PATH"] = os.pathsep.join(
            filter(None, [libdir, os.environ.get("LD_LIBRARY_PATH")]))
    config = TritonConfig(http_address=LOOPBACK, http_port=args.http_port,
                          grpc_address=LOOPBACK, grpc_port=args.grpc_port,
                          metrics_address=LOOPBACK, metrics_port=args.metrics_port,
                          allow_sagemaker=False, allow_vertex_ai=False)
    with Triton(config=config) as triton:
        for name, (_, input_name, shape) in MODELS.items():
            def infer(requests, run=functions[name], input_name=input_name):
                rows = [request[input_name] for request in requests]
                logits = run(np.concatenate(rows))
                out, start = [], 0
                for r in rows:
                    out.append({"logits": logits[start:start + len(r)]})
                    start += len(r)
                return out
            inputs = [Tensor(name=input_name, dtype=np.float32, shape=tuple(shape))]
            outputs = [Tensor(name="logits", dtype=np.float32, shape=(10,))]
            batchers = {name: None,
                        name + "_batched": DynamicBatcher(
                            max_queue_delay_microseconds=QUEUE_DELAY_US)}
            for model, batcher in batchers.items():
                triton.bind(model_name=model, infer_func=infer, inputs=inputs, outputs=outputs,
                            config=ModelConfig(max_batch_size=MAX_BATCH, batcher=batcher),
                            strict=False)
        triton.serve()


def serve_kserve(args, functions):
    import kserve
    from kserve.protocol.infer_type import InferOutput, InferResponse
    from kserve.protocol.rest import server as rest_server

    class NetworkModel(kserve.Model):
        def __init__(self, name, run):
            super().__init__(name)
            self.run = run
            self.ready = True

        def predict(self, payload, headers=None):
            logits = self.run(payload.inputs[0].as_numpy())
            out = InferOutput(name="logits", shape=list(logits.shape), datatype="FP32",
                              data=logits)
            return InferResponse(response_id=payload.id or "", model_name=self.name,
                                 infer_outputs=[out])

    # KServe's REST server hard-codes uvicorn's host 0.0.0.0; keep it on the loopback.
    init = rest_server.RESTServer.__init__

    def loopback_init(self, *a, **kw):
        init(self, *a, **kw)
        self.config.host = LOOPBACK
    rest_server.RESTServer.__init__ = loopback_init
    models = [NetworkModel(name, run) for name, run in functions.items()]
    kserve.ModelServer(http_port=args.http_port, enable_grpc=False, workers=1,
                       enable_latency_logging=False).start(models)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("server", choices=["triton", "kserve", "kserve_paddle"])
    p.add_argument("--http-port", type=int, required=True)
    p.add_argument("--grpc-port", type=int, default=0)
    p.add_argument("--metrics-port", type=int, default=0)
    args, _ = p.parse_known_args()
    # SIGTERM unwinds like Ctrl-C, so that PyTriton stops the tritonserver it started.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    functions = paddle_networks() if args.server == "kserve_paddle" else torch_networks()
    (serve_triton if args.server == "triton" else serve_kserve)(args, functions)


if __name__ == "__main__":
    main()
