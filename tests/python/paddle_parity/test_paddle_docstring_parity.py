"""The Paddle parity suite: Paddle's docstring examples run under skiff agree with Paddle's
reference (paddle_reference.json.gz), except those listed in known_differences.txt, a list
that may only shrink (docs/paddle_parity.md)."""

import warnings

import parity_compare
import parity_runner


def test_printed_tokens_ignore_the_tensor_header_fields_skiff_leaves_out():
    paddle_text = ("Tensor(shape=[2], dtype=float32, place=Place(cpu), stop_gradient=True,\n"
                   "       [1.50000000, 2.])\npaddle.int64 True")
    skiff_text = "Tensor(shape=[2], dtype=float32,\n       [1.5 2. ])\nskiff.int64 True"
    assert parity_runner.tokens(paddle_text) == parity_runner.tokens(skiff_text) == [
        2.0, "float32", 1.5, 2.0, "int64", "True"]


def test_a_random_value_is_compared_by_shape_and_dtype_only():
    want = {"shape": [2], "dtype": "float32", "values": [0.1, 0.2], "sum": 0.3, "abs": 0.3,
            "n": 2, "random": True}
    got = dict(want, values=[0.7, 0.9], sum=1.6, abs=1.6)
    assert parity_compare._value_difference("x", want, got) is None
    assert "dtype" in parity_compare._value_difference("x", want, dict(got, dtype="float64"))
    want["random"] = False
    assert "value [0]" in parity_compare._value_difference("x", want, got)


def test_docstring_examples_agree_with_paddle():
    examples = parity_compare.load_reference()
    outcomes = parity_compare.compare(examples, parity_compare.run_skiff(examples))
    print(parity_compare.report(examples, outcomes))
    known = parity_compare.load_known()
    new = [f"{ident} {kind}: {detail}" for ident, (kind, detail) in outcomes.items()
           if kind in ("differ", "error") and ident not in known]
    fixed = [ident for ident in known if outcomes.get(ident, ("gone",))[0] != "differ"
             and outcomes.get(ident, ("gone",))[0] != "error"]
    if fixed:
        warnings.warn(f"{len(fixed)} examples in known_differences.txt now agree (or are no "
                      f"longer in the reference); remove them: {', '.join(fixed)}")
    assert not new, ("examples that agreed with Paddle no longer do (or are new):\n"
                     + "\n".join(new))
