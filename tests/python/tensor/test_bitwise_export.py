"""The integer ops outside the interpreter: ONNX export (BitwiseAnd/Or/Xor/Not at opset
18, And/Or/Xor/Not on bools, run by ONNX Runtime) and `skiff compile` (the generated C++
program gives the interpreter's values for every bitwise op, shift, gcd and lcm)."""
import os
import pathlib
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import skiff
from skiff.static import InputSpec

A = np.array([12, -8, 9, -1], "int64")
B = np.array([10, 2, 6, 70], "int64")


@skiff.jit.to_static
def bit_ops(x, y):
    return [x & y, x | y, x ^ y, ~x]


@skiff.jit.to_static
def integer_ops(x, y):
    return [x & y, x | y, x ^ y, ~x, x << y, skiff.bitwise_right_shift(x, y),
            skiff.bitwise_right_shift(x, y, False), skiff.gcd(x, y), skiff.lcm(x, y)]


def onnx_session(fn, tmp_path, dtype, opset):
    spec = [InputSpec([4], dtype, "x"), InputSpec([4], dtype, "y")]
    path = skiff.onnx.export(fn, str(tmp_path / "m"), input_spec=spec, opset_version=opset)
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    return model, ort.InferenceSession(path, providers=["CPUExecutionProvider"])


def test_onnx_integers(tmp_path):
    model, session = onnx_session(bit_ops, tmp_path, "int64", 18)
    ops = {n.op_type for n in model.graph.node}
    assert {"BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"} <= ops
    got = session.run(None, {"x": A, "y": B})
    for g, w in zip(got, [A & B, A | B, A ^ B, ~A]):
        np.testing.assert_array_equal(g, w)


def test_onnx_bools(tmp_path):
    model, session = onnx_session(bit_ops, tmp_path, "bool", 13)
    assert {"And", "Or", "Xor", "Not"} <= {n.op_type for n in model.graph.node}
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    got = session.run(None, {"x": p, "y": q})
    for g, w in zip(got, [p & q, p | q, p ^ q, ~p]):
        np.testing.assert_array_equal(g, w)


def test_onnx_integers_need_opset_18(tmp_path):
    with pytest.raises(skiff.Error, match="opset 18"):
        onnx_session(bit_ops, tmp_path, "int64", 17)


def skiff_binary():
    checkout = pathlib.Path(__file__).resolve().parents[3]
    return pathlib.Path(os.environ.get("SKIFF_BUILD_DIR", checkout / "build")) / "bin" / "skiff"


def test_compiled_program_matches_the_interpreter(tmp_path):
    skiff.jit.save(integer_ops, str(tmp_path / "m"),
                   input_spec=[InputSpec([4], "int64", "x"), InputSpec([4], "int64", "y")])
    build = subprocess.run([str(skiff_binary()), "compile", str(tmp_path / "m.skmodel"), "-o",
                            str(tmp_path / "out"), "-j", "2"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    np.save(tmp_path / "a.npy", A)
    np.save(tmp_path / "b.npy", B)
    run = subprocess.run([str(tmp_path / "out" / "model"), "--in", f"x={tmp_path / 'a.npy'}",
                          "--in", f"y={tmp_path / 'b.npy'}", "--out", str(tmp_path / "res")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    listing = subprocess.run([str(tmp_path / "out" / "model"), "--help"], capture_output=True,
                             text=True).stdout
    lines = listing.split("outputs:")[1].split("parameters:")[0].split("\n")
    names = [line.split()[0] for line in lines if line.strip()]  # in fetch order
    want = integer_ops(skiff.to_tensor(A), skiff.to_tensor(B))
    assert len(names) == len(want) == 9
    for name, w in zip(names, want):
        got = np.load(tmp_path / "res" / f"{name}.npy")
        np.testing.assert_array_equal(got, w.numpy(), err_msg=name)
    logical = (A.view("uint64") >> B.view("uint64")).view("int64")
    np.testing.assert_array_equal(np.load(tmp_path / "res" / f"{names[6]}.npy"), logical)
