"""The YOLOv3 loss (paddle.vision.ops.yolo_loss) as tensor expressions: each ground truth
box goes to the anchor of best shape IoU and the cell holding its center; that prediction
gets location (sigmoid cross entropy on x, y, L1 on w, h, weighted 2 - w * h) and class
losses; objectness is positive there, ignored where a prediction overlaps any truth more than
ignore_thresh, negative elsewhere. Gathers carry the gradient to x."""
import numpy as np

from ...framework import arguments
from ... import tensor as T
from .nms import box_iou

__all__ = ["yolo_loss"]


def _sce(logit, label):
    """Sigmoid cross entropy with logits: max(x, 0) - x * z + log(1 + exp(-|x|))."""
    return T.clip(logit, min=0.0) - logit * label + T.log(1.0 + T.exp(-T.abs(logit)))


def _corners(cx, cy, w, h):
    return T.stack([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5, cy + h * 0.5], axis=-1)


def _check(fn, x, gt_box, gt_label, gt_score, anchors, mask, class_num):
    for param, t in (("x", x), ("gt_box", gt_box), ("gt_label", gt_label)):
        arguments.tensor(fn, param, t)
    arguments.dtype_in(fn, "x", x, ("float32", "float64"))
    want = len(mask) * (5 + class_num)
    if len(x.shape) != 4 or x.shape[1] != want:
        raise arguments.ArgumentError(
            f"{fn}: x must be [N, {want}, H, W] (len(anchor_mask) * (5 + class_num)), got "
            f"shape {list(x.shape)}")
    if x.shape[2] != x.shape[3]:
        raise arguments.ArgumentError(f"{fn}: x's H and W must be equal, got "
                                      f"{list(x.shape)}")
    n = x.shape[0]
    if len(gt_box.shape) != 3 or gt_box.shape[0] != n or gt_box.shape[2] != 4:
        raise arguments.ArgumentError(f"{fn}: gt_box must be [N, B, 4] with N = {n}, got "
                                      f"shape {list(gt_box.shape)}")
    if list(gt_label.shape) != list(gt_box.shape[:2]):
        raise arguments.ArgumentError(f"{fn}: gt_label must be [N, B] = "
                                      f"{list(gt_box.shape[:2])}, got {list(gt_label.shape)}")
    arguments.dtype_in(fn, "gt_label", gt_label, ("int32", "int64"))
    if gt_score is not None and list(arguments.tensor(fn, "gt_score", gt_score).shape) != \
            list(gt_box.shape[:2]):
        raise arguments.ArgumentError(f"{fn}: gt_score must be [N, B] = "
                                      f"{list(gt_box.shape[:2])}, got {list(gt_score.shape)}")
    if not anchors or len(anchors) % 2:
        raise arguments.ArgumentError(f"{fn}: anchors must hold (w, h) pairs, got {anchors}")
    bad = [m for m in mask if not 0 <= m < len(anchors) // 2]
    if bad or not mask:
        raise arguments.ArgumentError(f"{fn}: anchor_mask must index the {len(anchors) // 2} "
                                      f"anchors, got {mask}")


def yolo_loss(x, gt_box, gt_label, anchors, anchor_mask, class_num, ignore_thresh,
              downsample_ratio, gt_score=None, use_label_smooth=True, name=None,
              scale_x_y=1.0):
    """The YOLOv3 loss [N] of a head's output x [N, len(anchor_mask) * (5 + class_num), H, W]
    for ground truth boxes gt_box [N, B, 4] (center x, y, w, h relative to the image),
    gt_label [N, B] and gt_score [N, B] (1 when None)."""
    fn = "yolo_loss"
    anchors = arguments.integers(fn, "anchors", anchors)
    mask = arguments.integers(fn, "anchor_mask", anchor_mask)
    classes = arguments.count(fn, "class_num", class_num, low=1)
    _check(fn, x, gt_box, gt_label, gt_score, anchors, mask, classes)
    ignore = arguments.number(fn, "ignore_thresh", ignore_thresh)
    ratio = arguments.count(fn, "downsample_ratio", downsample_ratio, low=1)
    scale = arguments.number(fn, "scale_x_y", scale_x_y)
    smooth = arguments.flag(fn, "use_label_smooth", use_label_smooth)
    n, _, h, w = [int(s) for s in x.shape]
    m, b, a = len(mask), int(gt_box.shape[1]), len(anchors) // 2
    dtype = arguments.dtype_name_of(x)
    size = float(ratio * h)
    head = x.reshape([n, m, 5 + classes, h, w])
    gt = T.cast(gt_box, dtype)
    score = T.ones([n, b], dtype=dtype) if gt_score is None else T.cast(gt_score, dtype)
    valid = T.logical_and(gt[:, :, 2] >= 1e-6, gt[:, :, 3] >= 1e-6)   # [N, B]
    sizes = np.array(anchors, dtype=dtype).reshape(a, 2) / size
    masked = T.to_tensor(sizes[mask])                                   # [M, 2]

    # Ignored predictions: those overlapping some valid truth more than ignore_thresh.
    bias = -0.5 * (scale - 1.0)
    cols = T.arange(w, dtype=dtype).reshape([1, 1, 1, w])
    rows = T.arange(h, dtype=dtype).reshape([1, 1, h, 1])
    px = (cols + T.sigmoid(head[:, :, 0]) * scale + bias) / w
    py = (rows + T.sigmoid(head[:, :, 1]) * scale + bias) / h
    pw = T.exp(head[:, :, 2]) * masked[:, 0].reshape([1, m, 1, 1])
    ph = T.exp(head[:, :, 3]) * masked[:, 1].reshape([1, m, 1, 1])
    pred = _corners(px, py, pw, ph).reshape([n, m * h * w, 4])
    truth = _corners(gt[:, :, 0], gt[:, :, 1], gt[:, :, 2], gt[:, :, 3])
    iou = box_iou(pred, truth) * T.cast(valid, dtype).unsqueeze(1)     # [N, MHW, B]
    ignored = (T.max(iou, axis=-1) > ignore).reshape([n, m, h, w]).detach()

    # The anchor of best shape IoU for each truth, and the prediction it is matched to.
    aw, ah = T.to_tensor(sizes[:, 0]), T.to_tensor(sizes[:, 1])
    inter = T.minimum(gt[:, :, 2:3], aw) * T.minimum(gt[:, :, 3:4], ah)
    shape_iou = inter / (gt[:, :, 2:3] * gt[:, :, 3:4] + aw * ah - inter)
    best = T.argmax(shape_iou, axis=-1)                                 # [N, B]
    lookup = np.full(a, -1, dtype="int64")
    for j, k in enumerate(mask):
        lookup[k] = j
    slot = T.gather(T.to_tensor(lookup), best.reshape([-1])).reshape([n, b])
    matched = T.logical_and(valid, slot >= 0)
    gi = T.clip(T.cast(T.floor(gt[:, :, 0] * w), "int64"), 0, w - 1)
    gj = T.clip(T.cast(T.floor(gt[:, :, 1] * h), "int64"), 0, h - 1)
    images = T.arange(n, dtype="int64").unsqueeze(1)
    cell = ((images * m + T.clip(slot, min=0)) * h + gj) * w + gi      # [N, B]
    cells = T.transpose(head, [0, 1, 3, 4, 2]).reshape([n * m * h * w, 5 + classes])
    picked = T.gather(cells, cell.reshape([-1])).reshape([n, b, 5 + classes])

    # Location and class losses of the matched predictions.
    weight = T.cast(matched, dtype) * score
    anchor_wh = T.to_tensor(np.array(anchors, dtype=dtype).reshape(a, 2))
    best_wh = T.gather(anchor_wh, best.reshape([-1])).reshape([n, b, 2])
    tx = gt[:, :, 0] * w - T.cast(gi, dtype)
    ty = gt[:, :, 1] * h - T.cast(gj, dtype)
    safe = T.where(matched.unsqueeze(-1), gt[:, :, 2:4] * size / best_wh,
                   T.ones_like(best_wh))
    tw, th = T.log(safe[:, :, 0]), T.log(safe[:, :, 1])
    box_scale = (2.0 - gt[:, :, 2] * gt[:, :, 3]) * weight
    loc = (_sce(picked[:, :, 0], tx) + _sce(picked[:, :, 1], ty) +
           T.abs(picked[:, :, 2] - tw) + T.abs(picked[:, :, 3] - th)) * box_scale
    smoothing = min(1.0 / classes, 1.0 / 40) if smooth else 0.0
    pos, neg = 1.0 - smoothing, smoothing
    onehot = T.cast(T.arange(classes, dtype="int64") == T.cast(gt_label, "int64")
                    .unsqueeze(-1), dtype)
    label = onehot * pos + (1.0 - onehot) * neg
    cls = T.sum(_sce(picked[:, :, 5:], label), axis=-1) * weight

    # Objectness: a matched cell takes its last truth's score (as Paddle's loop writes it).
    later = T.triu(T.ones([b, b], dtype="int32"), diagonal=1) > 0
    same = T.logical_and(cell.unsqueeze(2) == cell.unsqueeze(1), later)
    same = T.logical_and(same, matched.unsqueeze(1))
    last = T.logical_and(matched, T.logical_not(T.any(same, axis=2)))
    flat = T.zeros([n * m * h * w], dtype=dtype)
    hits = T.scatter(flat, cell.reshape([-1]), T.cast(matched, dtype).reshape([-1]),
                     overwrite=False)
    target = T.scatter(flat, cell.reshape([-1]), (T.cast(last, dtype) * score).reshape([-1]),
                       overwrite=False)
    hit = (hits > 0).reshape([n, m, h, w])
    target = target.reshape([n, m, h, w])
    obj = head[:, :, 4]
    positive = T.logical_and(hit, target > 1e-5)
    negative = T.logical_and(T.logical_not(positive),
                             T.logical_or(hit, T.logical_not(ignored)))
    zeros = T.zeros_like(obj)
    obj_loss = T.where(positive, _sce(obj, T.ones_like(obj)) * target,
                       T.where(negative, _sce(obj, zeros), zeros))
    return T.sum(loc + cls, axis=1) + T.sum(obj_loss, axis=[1, 2, 3])
