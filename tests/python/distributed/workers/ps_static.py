"""The static-program CTR model of the parameter-server tests: ps_ctr.py's model (8 fields
of 3 ids, each field's rows summed, an MLP, a logit) built with skiff.static, its
parameters named so that every process builds the same names."""
import numpy as np
import ps_ctr

import skiff
import skiff.nn.functional as F
from skiff import static
from skiff.framework.param import ParamAttr
from skiff.nn.initializer import Uniform

TABLE = "emb"


def build(optimizer=None, minimizer=None, table_rows=ps_ctr.FIELDS * ps_ctr.VOCAB):
    """(main, startup, loss) of the model; with ``optimizer`` minimized by it, with
    ``minimizer`` (a ps.program.DistributedMinimizer) minimized and split."""
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        ids = static.data("ids", [-1, ps_ctr.FIELDS, ps_ctr.IDS_PER_FIELD], "int64")
        label = static.data("label", [-1], "float32")
        rows = static.nn.embedding(ids, size=[table_rows, ps_ctr.DIM], is_sparse=True,
                                   param_attr=ParamAttr(name=TABLE,
                                                        initializer=Uniform(-0.1, 0.1)))
        pooled = rows.sum(axis=2).reshape([-1, ps_ctr.FIELDS * ps_ctr.DIM])
        hidden = static.nn.fc(pooled, 32, activation="relu", name="fc1")
        logit = static.nn.fc(hidden, 1, name="fc2").reshape([-1])
        loss = F.binary_cross_entropy_with_logits(logit, label)
        if optimizer is not None:
            optimizer.minimize(loss)
        if minimizer is not None:
            minimizer.minimize(loss)
    return main, startup, loss


DENSE = ["fc1.w_0", "fc1.b_0", "fc2.w_0", "fc2.b_0"]


def sgd():
    return skiff.optimizer.SGD(learning_rate=ps_ctr.LR)


def evaluate(rows_of, dense, ids, labels):
    """The AUC of the model whose rows ``rows_of(ids)`` gives ([n, DIM] for int64 ids [n])
    and whose dense parameters are ``dense`` (by name, as arrays) on the samples."""
    n = len(ids)
    rows = np.asarray(rows_of(np.ascontiguousarray(ids.reshape(-1))), np.float32)
    pooled = rows.reshape(n, ps_ctr.FIELDS, ps_ctr.IDS_PER_FIELD, ps_ctr.DIM).sum(axis=2)
    w1, b1, w2, b2 = (np.asarray(dense[name], np.float32) for name in DENSE)
    hidden = np.maximum(pooled.reshape(n, -1) @ w1 + b1, 0)
    return ps_ctr.auc((hidden @ w2 + b2).reshape(-1), labels)
