"""A Paddle 2.x tutorial-style script (a Conv + Linear network, Adam, Model.fit /
evaluate / predict on a small synthetic dataset) run unchanged, as text, after
`import paddle` and after `import skiff as paddle`, from the same initial weights:
the step losses, the evaluation and the predictions agree."""
import numpy as np
import pytest

# paddle.Model converts its Tensor batches with to_tensor, which paddle warns about.
pytestmark = pytest.mark.filterwarnings("ignore:To copy construct from a tensor")

TUTORIAL = '''
import numpy as np


class RandomDataset(paddle.io.Dataset):
    def __init__(self, num_samples, seed):
        rng = np.random.RandomState(seed)
        self.images = rng.rand(num_samples, 1, 8, 8).astype("float32")
        self.labels = rng.randint(0, 4, size=(num_samples, 1)).astype("int64")

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]

    def __len__(self):
        return len(self.images)


class SmallNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(1, 4, kernel_size=3, padding=1)
        self.pool = paddle.nn.MaxPool2D(kernel_size=2, stride=2)
        self.fc1 = paddle.nn.Linear(4 * 4 * 4, 16)
        self.fc2 = paddle.nn.Linear(16, 4)

    def forward(self, x):
        x = self.pool(paddle.nn.functional.relu(self.conv(x)))
        x = paddle.flatten(x, start_axis=1)
        x = paddle.nn.functional.relu(self.fc1(x))
        return self.fc2(x)


class LossHistory(paddle.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.losses = []

    def on_train_batch_end(self, step, logs=None):
        self.losses.append(float(logs["loss"][0]))


train_dataset = RandomDataset(48, seed=1)
eval_dataset = RandomDataset(24, seed=2)

net = SmallNet()
state = net.state_dict()
net.set_state_dict({k: paddle.to_tensor(INITIAL_VALUE(k, v.shape)) for k, v in state.items()})

model = paddle.Model(net)
optimizer = paddle.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
model.prepare(optimizer, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
history = LossHistory()
model.fit(train_dataset, eval_dataset, epochs=3, batch_size=16, shuffle=False, verbose=0,
          callbacks=[history])
result = model.evaluate(eval_dataset, batch_size=8, verbose=0)
predictions = model.predict(eval_dataset, batch_size=8, stack_outputs=True, verbose=0)
'''


def initial_value(name, shape):
    """Deterministic starting values for a parameter, the same for both frameworks."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(name))
    rng = np.random.default_rng(seed)
    return (0.3 * rng.standard_normal(list(shape))).astype(np.float32)


def run_tutorial(module):
    namespace = {"paddle": module, "INITIAL_VALUE": initial_value}
    exec(compile(TUTORIAL, "tutorial.py", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def paddle_run(paddle):
    paddle.set_device("cpu")
    return run_tutorial(paddle)


@pytest.fixture(scope="module")
def skiff_run():
    import skiff
    return run_tutorial(skiff)


def test_same_parameter_names_and_shapes(paddle_run, skiff_run):
    ours = {k: list(v.shape) for k, v in skiff_run["net"].state_dict().items()}
    theirs = {k: list(v.shape) for k, v in paddle_run["net"].state_dict().items()}
    assert ours == theirs


def test_step_losses_agree(paddle_run, skiff_run):
    theirs = paddle_run["history"].losses
    assert len(theirs) == 9
    np.testing.assert_allclose(skiff_run["history"].losses, theirs, rtol=1e-4, atol=1e-5)


def test_trained_weights_agree(paddle_run, skiff_run):
    theirs = paddle_run["net"].state_dict()
    for name, value in skiff_run["net"].state_dict().items():
        np.testing.assert_allclose(value.numpy(), theirs[name].numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=name)


def test_evaluation_and_predictions_agree(paddle_run, skiff_run):
    ours, theirs = skiff_run["result"], paddle_run["result"]
    assert sorted(ours) == sorted(theirs) == ["acc", "loss"]
    np.testing.assert_allclose(ours["loss"], theirs["loss"], rtol=1e-4, atol=1e-5)
    assert ours["acc"] == pytest.approx(theirs["acc"])
    assert len(skiff_run["predictions"]) == len(paddle_run["predictions"]) == 1
    np.testing.assert_allclose(skiff_run["predictions"][0], paddle_run["predictions"][0],
                               rtol=1e-4, atol=1e-5)
