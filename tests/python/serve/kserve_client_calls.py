"""KServe's own Python clients (kserve.InferenceRESTClient with the v2 protocol, and
kserve.InferenceGRPCClient) called on a running `skiff serve`: health, model readiness,
inference with JSON and with binary tensors, and an unknown model. Run by
test_kserve_client.py with the python of the environment KServe is installed in (its pins
conflict with the test environment's); reads what to call from standard input (importing
kserve parses the command line as its model server's) and prints one JSON object with what
the calls gave.

  echo '{"http": "127.0.0.1:P", "grpc": "127.0.0.1:Q", "model": NAME, "input": [[...]]}' |
      python kserve_client_calls.py
"""
import asyncio
import json
import sys

import grpc
import httpx
import numpy as np
from kserve import InferenceGRPCClient, InferenceRESTClient, InferInput, InferRequest, RESTConfig


def request(model, x, binary):
    tensor = InferInput("x", list(x.shape), "FP32")
    tensor.set_data_from_numpy(x, binary_data=binary)
    return InferRequest(model_name=model, infer_inputs=[tensor], request_id="kserve-1")


async def rest_calls(url, model, x):
    out = {}
    base = f"http://{url}"
    rest = InferenceRESTClient(RESTConfig(protocol="v2", retries=1, timeout=30))
    try:
        out["live"] = await rest.is_server_live(base)
        out["ready"] = await rest.is_server_ready(base)
        out["model_ready"] = await rest.is_model_ready(base, model)
        for binary in (False, True):
            response = await rest.infer(base, request(model, x, binary), model_name=model)
            out["binary" if binary else "json"] = {
                "id": response.id, "model": response.model_name,
                "name": response.outputs[0].name,
                "values": response.outputs[0].as_numpy().tolist()}
        try:
            await rest.infer(base, request("no_such_model", x, False), model_name="no_such_model")
            out["unknown"] = "answered"
        except httpx.HTTPStatusError as e:
            out["unknown"] = [e.response.status_code, e.response.text]
    finally:
        await rest.close()
    return out


async def grpc_calls(url, model, x):
    out = {}
    client = InferenceGRPCClient(url, timeout=30)
    try:
        out["live"] = await client.is_server_live()
        out["ready"] = await client.is_server_ready()
        out["model_ready"] = await client.is_model_ready(model)
        response = await client.infer(request(model, x, False))
        out["infer"] = {"id": response.id, "model": response.model_name,
                        "name": response.outputs[0].name,
                        "values": response.outputs[0].as_numpy().tolist()}
        try:
            await client.infer(request("no_such_model", x, False))
            out["unknown"] = "answered"
        except grpc.RpcError as e:
            out["unknown"] = [e.code().name, e.details()]
    finally:
        await client.close()
    return out


async def main():
    call = json.load(sys.stdin)
    x = np.array(call["input"], dtype=np.float32)
    print(json.dumps({"rest": await rest_calls(call["http"], call["model"], x),
                      "grpc": await grpc_calls(call["grpc"], call["model"], x)}))


if __name__ == "__main__":
    asyncio.run(main())
