"""W3 as an elastic job of the autoscaling experiment (bench/edl_local.py): the CNN of
examples/fashion_mnist.py (copied beside this script) on the first SAMPLES Fashion-MNIST
training images, Adam, batches of 32 per worker, EPOCHS epochs, with ElasticTrainer: the
job service grows and shrinks it while it trains. Every applied step is logged to
steps/steps.PID.jsonl (the experiment checks from them that every sample was trained on
exactly once).

    python w3_job.py SAMPLES EPOCHS"""
import sys

import numpy as np

import skiff
import skiff.nn.functional as F
from fashion_mnist import ConvNet
from logged_fit import logged_fit
from skiff.vision.datasets import FashionMNIST

samples, epochs = int(sys.argv[1]), int(sys.argv[2])
data = FashionMNIST(mode="train")
images = (data.images[:samples].astype(np.float32) / 127.5 - 1.0)[:, None]
train = [(images[i], data.labels[i]) for i in range(samples)]

skiff.seed(3)
model = ConvNet()
opt = skiff.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
logged_fit("w3", model, opt, train, 32, lambda m, x, y: F.cross_entropy(m(x), y), epochs)
