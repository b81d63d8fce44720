"""The progress output of fit / evaluate / predict, and ProgressBar's fields."""
import io
import re

import numpy as np
import pytest

from skiff.hapi.progressbar import ProgressBar, format_seconds
from skiff.io import TensorDataset
from tiny_regression import data, make_model


def test_verbose_2_prints_one_line_per_log_freq_steps(capsys):
    x, y = data()
    model, _ = make_model()
    model.fit(TensorDataset([x, y]), TensorDataset([x, y]), batch_size=8, epochs=2,
              log_freq=3, verbose=2)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out and "Eval begin..." in out
    train_lines = [l for l in out.splitlines() if l.startswith("step")]
    # per epoch: steps 3 and 6 of 8, the epoch's last step; then eval steps 3, 6, 8
    counts = [l.split()[1] for l in train_lines]
    assert counts == ["3/8", "6/8", "8/8", "3/8", "6/8", "8/8"] * 2
    line = train_lines[0]
    assert re.match(r"step 3/8 - loss: \d\.\d{4} - acc: \d\.\d{4} - \d+s elapsed - "
                    r"ETA: \d+s - \d+(us|ms|s)/step$", line), line
    assert "ETA" not in train_lines[2]
    assert "Eval samples: 64" in out


def test_verbose_1_shows_a_bar_and_verbose_0_nothing(capsys):
    x, y = data()
    model, _ = make_model()
    model.fit(TensorDataset([x, y]), batch_size=16, epochs=1, log_freq=1, verbose=1)
    out = capsys.readouterr().out
    assert "step 2/4 [==============>...............]" in out
    assert "step 4/4 [==============================]" in out
    model.fit(TensorDataset([x, y]), batch_size=16, epochs=1, verbose=0)
    model.evaluate(TensorDataset([x, y]), batch_size=16, verbose=0)
    model.predict(TensorDataset([x]), batch_size=16, verbose=0)
    assert capsys.readouterr().out == ""


def test_predict_reports_samples(capsys):
    x, _ = data()
    model, _ = make_model()
    model.predict(TensorDataset([x]), batch_size=10, verbose=2)
    out = capsys.readouterr().out
    assert "Predict begin..." in out and "Predict samples: 64" in out
    assert "step 7/7" in out


def test_bar_redraws_in_place_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    bar = ProgressBar(num=4, verbose=1, file=out, width=8)
    for i in range(1, 5):
        bar.update(i, [("loss", np.float32(0.25))])
    text = out.getvalue()
    assert text.count("\r") == 4 and text.endswith("\n") and text.count("\n") == 1
    assert "step 4/4 [========] - loss: 0.2500" in text


def test_unknown_length_and_small_values():
    out = io.StringIO()
    bar = ProgressBar(num=None, verbose=2, file=out)
    bar.update(5, [("loss", [1e-5]), ("acc", 0.5), ("note", "x")])
    assert out.getvalue().startswith("step   5 - loss: 1.0000e-05 - acc: 0.5000 - note: x - ")
    assert "ETA" not in out.getvalue()
    with pytest.raises(ValueError):
        ProgressBar(num=0)


@pytest.mark.parametrize("seconds,text", [(0, "0s"), (59.9, "59s"), (61, "1:01"),
                                          (3725, "1:02:05")])
def test_format_seconds(seconds, text):
    assert format_seconds(seconds) == text
