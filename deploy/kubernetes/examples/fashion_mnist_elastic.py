"""The demo as an elastic job: examples/fashion_mnist.py's CNN trained on Fashion-MNIST with
skiff.distributed.elastic.ElasticTrainer, so that workers may come and go (a SkiffJob's
pods, each started by skiff launch, which sets SKIFF_ETCD and SKIFF_JOB_ID).

    python -m skiff.distributed.launch --nnodes 2:4 --etcd HOST:PORT --job_id NAME \\
        deploy/kubernetes/examples/fashion_mnist_elastic.py --epochs 3"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "examples"))
import skiff  # noqa: E402
import skiff.nn.functional as F  # noqa: E402
from fashion_mnist import ConvNet, datasets  # noqa: E402
from skiff.distributed import elastic  # noqa: E402

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--data", default=None, help="folder of the Fashion-MNIST IDX files")
p.add_argument("--checkpoints", default="/tmp/skiff/checkpoints")
args = p.parse_args()

skiff.seed(2024)
train_set, _ = datasets(args.data)
model = ConvNet()
opt = skiff.optimizer.Adam(learning_rate=args.lr, parameters=model.parameters())
trainer = elastic.ElasticTrainer(
    model, opt, train_set, batch_size=args.batch_size,
    loss_fn=lambda m, x, y: F.cross_entropy(m(x), y), checkpoint_dir=args.checkpoints,
    on_step=lambda info: info["step"] % 100 == 0 and print(
        f"step {info['step']} world {info['world_size']}", flush=True))
steps = trainer.fit(epochs=args.epochs)
print(f"done after {steps} steps", flush=True)
