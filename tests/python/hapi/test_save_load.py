"""Model.save / Model.load (parameters and optimizer state, Paddle's file format), the
inference program written by save(training=False), and the checkpoints written by
ModelCheckpoint and EarlyStopping."""
import os

import numpy as np
import pytest

import skiff
from skiff.hapi.callbacks import EarlyStopping
from skiff.io import TensorDataset

def classifier(paddle):
    """The same network in skiff or in paddle (pass the module)."""
    class Classifier(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = paddle.nn.Conv2D(1, 3, 3, padding=1)
            self.fc = paddle.nn.Linear(3 * 4 * 4, 5)

        def forward(self, x):
            x = paddle.nn.functional.max_pool2d(paddle.nn.functional.relu(self.conv(x)), 2, 2)
            return self.fc(paddle.flatten(x, 1))

    return Classifier()


def dataset(n=32, seed=0):
    rng = np.random.default_rng(seed)
    return TensorDataset([rng.standard_normal((n, 1, 8, 8)).astype(np.float32),
                          rng.integers(0, 5, (n, 1)).astype(np.int64)])


def prepared(net=None):
    net = net or classifier(skiff)
    model = skiff.Model(net)
    model.prepare(skiff.optimizer.Adam(learning_rate=0.01, parameters=net.parameters()),
                  skiff.nn.CrossEntropyLoss(), skiff.metric.Accuracy())
    return model


def weights(model):
    return {k: v.numpy().copy() for k, v in model.network.state_dict().items()}


def test_save_then_load_restores_parameters_and_optimizer(tmp_path):
    data = dataset()
    model = prepared()
    model.fit(data, batch_size=8, epochs=1, verbose=0, shuffle=False)
    path = str(tmp_path / "ckpt" / "epoch1")
    model.save(path)
    assert os.path.exists(path + ".pdparams") and os.path.exists(path + ".pdopt")

    restored = prepared()
    restored.load(path)
    for k, v in weights(model).items():
        np.testing.assert_array_equal(weights(restored)[k], v)
    x, y = data.tensors[0][:8], data.tensors[1][:8]
    # One more step on both: the same Adam moments give the same update.
    first = model.train_batch([x], [y])[0][0]
    second = restored.train_batch([x], [y])[0][0]
    assert float(second) == pytest.approx(float(first), rel=1e-6)
    for k, v in weights(model).items():
        np.testing.assert_allclose(weights(restored)[k], v, rtol=1e-6, atol=1e-7)


def test_reset_optimizer_starts_adam_afresh(tmp_path):
    data = dataset()
    model = prepared()
    model.fit(data, batch_size=8, epochs=1, verbose=0, shuffle=False)
    model.save(str(tmp_path / "m"))
    fresh, restored = prepared(), prepared()
    fresh.load(str(tmp_path / "m.pdparams"), reset_optimizer=True)
    restored.load(str(tmp_path / "m"))
    x, y = data.tensors[0][:8], data.tensors[1][:8]
    fresh.train_batch([x], [y])
    restored.train_batch([x], [y])
    diff = max(np.abs(weights(fresh)[k] - weights(restored)[k]).max() for k in weights(fresh))
    assert diff > 1e-6


def test_load_checks_names_and_shapes(tmp_path):
    model = prepared()
    model.save(str(tmp_path / "m"))

    class Wider(skiff.nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = skiff.nn.Conv2D(1, 3, 3, padding=1)
            self.fc = skiff.nn.Linear(3 * 4 * 4, 7)
            self.extra = skiff.nn.Linear(2, 2)

        def forward(self, x):
            return x

    other = skiff.Model(Wider())
    with pytest.raises(ValueError, match="fc.weight has shape"):
        other.load(str(tmp_path / "m"))
    with pytest.warns(UserWarning, match="skipping"):
        other.load(str(tmp_path / "m"), skip_mismatch=True)
    np.testing.assert_array_equal(other.network.conv.weight.numpy(),
                                  model.network.conv.weight.numpy())


def test_checkpoints_of_paddle_load_into_skiff(tmp_path, paddle):
    theirs = paddle.Model(classifier(paddle))
    theirs.prepare(paddle.optimizer.Adam(parameters=theirs.parameters()))
    theirs.save(str(tmp_path / "paddle_ckpt"))
    ours = prepared()
    ours.load(str(tmp_path / "paddle_ckpt"), reset_optimizer=True)
    for k, v in theirs.network.state_dict().items():
        np.testing.assert_array_equal(weights(ours)[k], v.numpy())


def test_inference_program_gives_the_eager_outputs(tmp_path):
    data = dataset()
    model = prepared()
    model.fit(data, batch_size=8, epochs=1, verbose=0)
    path = str(tmp_path / "infer" / "classifier")
    model.save(path, training=False)
    assert os.path.exists(path + ".skmodel") and os.path.exists(path + ".skparams")
    assert model.network.training  # save() put the network back in training mode
    loaded = skiff.jit.load(path)
    x = data.tensors[0][:5]
    expected = model.predict_batch([x])[0]
    np.testing.assert_allclose(loaded(skiff.to_tensor(x)).numpy(), expected, rtol=1e-5,
                               atol=1e-6)


def test_inference_program_before_any_batch_needs_specs(tmp_path):
    model = prepared()
    with pytest.raises(skiff.Error, match="InputSpec"):
        model.save(str(tmp_path / "m"), training=False)
    spec = skiff.static.InputSpec([None, 1, 8, 8], "float32", "x")
    with_spec = skiff.Model(classifier(skiff), inputs=[spec])
    with_spec.save(str(tmp_path / "m"), training=False)
    assert skiff.jit.load(str(tmp_path / "m"))(
        skiff.to_tensor(np.zeros((2, 1, 8, 8), np.float32))).shape == [2, 5]


def test_model_checkpoint_and_best_model(tmp_path, capsys):
    data = dataset()
    model = prepared()
    stop = EarlyStopping(monitor="acc", patience=5, verbose=0)
    model.fit(data, data, batch_size=8, epochs=2, verbose=0, save_dir=str(tmp_path),
              callbacks=[stop])
    for name in ("0", "1", "final", "best_model"):
        assert os.path.exists(tmp_path / (name + ".pdparams")), name
    assert "save checkpoint at" in capsys.readouterr().out
    final = prepared()
    final.load(str(tmp_path / "final"))
    for k, v in weights(model).items():
        np.testing.assert_array_equal(weights(final)[k], v)
