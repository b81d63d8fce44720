"""Box selection: nms (greedy non-maximum suppression, per category when asked) and
matrix_nms (SOLOv2's parallel score decay). Both return integer indices (no gradient). The
greedy choice is found as the fixed point of one matrix-vector step over all boxes (box i is
kept when no kept box before it overlaps it more than the threshold), which settles in at
most as many steps as there are chains of suppression, not one step per box."""
from ...framework import arguments
from ... import tensor as T

__all__ = ["nms", "matrix_nms", "box_iou"]


def _extent(lo, hi, one):
    """hi - lo + one where hi >= lo, else 0 (Paddle's boxes of no overlap or no area)."""
    return T.where(hi >= lo, hi - lo + one, T.zeros_like(hi))


def box_iou(a, b, one=0.0):
    """The IoU [.., M, K] of boxes a [.., M, 4] and b [.., K, 4] (corners; ``one`` added to
    the extents of pixel boxes)."""
    def area(t):
        return _extent(t[..., 0], t[..., 2], one) * _extent(t[..., 1], t[..., 3], one)
    x1 = T.maximum(a[..., :, 0].unsqueeze(-1), b[..., :, 0].unsqueeze(-2))
    y1 = T.maximum(a[..., :, 1].unsqueeze(-1), b[..., :, 1].unsqueeze(-2))
    x2 = T.minimum(a[..., :, 2].unsqueeze(-1), b[..., :, 2].unsqueeze(-2))
    y2 = T.minimum(a[..., :, 3].unsqueeze(-1), b[..., :, 3].unsqueeze(-2))
    inter = _extent(x1, x2, one) * _extent(y1, y2, one)
    union = area(a).unsqueeze(-1) + area(b).unsqueeze(-2) - inter
    return T.where(union > 0, inter / T.where(union > 0, union, T.ones_like(union)),
                   T.zeros_like(union))


def greedy_keep(suppresses):
    """The greedy selection (bool [n]) of boxes in order, where suppresses[j, i] (bool
    [n, n], only j < i) says a kept box j removes box i."""
    blocker = T.cast(suppresses, "float32")
    keep = T.ones([suppresses.shape[0]], dtype="float32")
    while True:
        new = T.cast(T.matmul(keep.unsqueeze(0), blocker).squeeze(0) == 0, "float32")
        if bool(T.equal_all(new, keep)):
            return T.cast(keep, "bool")
        keep = new


def nms(boxes, iou_threshold=0.3, scores=None, category_idxs=None, categories=None,
        top_k=None):
    """The indices (int64) of the boxes [N, 4] greedy NMS keeps: in box order without
    scores, else by falling score; with category_idxs, boxes only suppress boxes of their own
    category, only the categories listed are kept, and at most top_k of them."""
    fn = "nms"
    arguments.tensor(fn, "boxes", boxes)
    if len(boxes.shape) != 2 or boxes.shape[1] != 4:
        raise arguments.ArgumentError(f"{fn}: boxes must be [N, 4], got shape "
                                      f"{list(boxes.shape)}")
    thresh = arguments.number(fn, "iou_threshold", iou_threshold)
    n = int(boxes.shape[0])
    b = boxes.detach()
    if scores is None:
        if category_idxs is not None:
            raise arguments.ArgumentError(f"{fn}: category_idxs needs scores")
        order = T.arange(n, dtype="int64")
    else:
        arguments.tensor(fn, "scores", scores)
        if list(scores.shape) != [n]:
            raise arguments.ArgumentError(f"{fn}: scores must be [{n}] (one per box), got "
                                          f"shape {list(scores.shape)}")
        order = T.argsort(scores.detach(), descending=True, stable=True)
    if n == 0:
        return order
    ranked = T.gather(b, order, axis=0)
    earlier = T.triu(T.ones([n, n], dtype="int32"), diagonal=1) > 0
    suppresses = T.logical_and(box_iou(ranked, ranked) > thresh, earlier)
    if category_idxs is not None:
        arguments.tensor(fn, "category_idxs", category_idxs)
        if list(category_idxs.shape) != [n]:
            raise arguments.ArgumentError(f"{fn}: category_idxs must be [{n}], got shape "
                                          f"{list(category_idxs.shape)}")
        if categories is None:
            raise arguments.ArgumentError(f"{fn}: categories must list the categories to "
                                          f"keep when category_idxs is given")
        cats = T.gather(T.cast(category_idxs, "int64"), order, axis=0)
        suppresses = T.logical_and(suppresses, cats.unsqueeze(1) == cats.unsqueeze(0))
        wanted = T.to_tensor(arguments.integers(fn, "categories", categories), dtype="int64")
        listed = T.any(cats.unsqueeze(1) == wanted.unsqueeze(0), axis=1)
    keep = greedy_keep(suppresses)
    if category_idxs is not None:
        keep = T.logical_and(keep, listed)
    out = T.masked_select(order, keep)
    if top_k is not None and category_idxs is not None:   # Paddle reads it only there
        out = out[:arguments.count(fn, "top_k", top_k)]
    return out


def _decay(iou, ranked_valid, use_gaussian, sigma):
    """The decay [.., K] of each box: min over higher-scored boxes j of f(iou[j, i],
    comp[j]), comp[j] the largest IoU of box j with a box above it."""
    k = iou.shape[-1]
    above = T.triu(T.ones([k, k], dtype="int32"), diagonal=1) > 0
    pair = T.logical_and(above, T.logical_and(ranked_valid.unsqueeze(-1),
                                              ranked_valid.unsqueeze(-2)))
    iou = T.where(pair, iou, T.zeros_like(iou))
    comp = T.max(iou, axis=-2).unsqueeze(-1)                           # [.., K, 1] per j
    if use_gaussian:
        f = T.exp((comp * comp - iou * iou) * sigma)
    else:
        f = (1.0 - iou) / (1.0 - comp)
    f = T.where(pair, f, T.ones_like(f))
    return T.min(f, axis=-2)


def matrix_nms(bboxes, scores, score_threshold, post_threshold, nms_top_k, keep_top_k,
               use_gaussian=False, gaussian_sigma=2.0, background_label=0, normalized=True,
               return_index=False, return_rois_num=True, name=None):
    """Matrix NMS of bboxes [N, M, 4] with scores [N, C, M]: (out [K, 6] (label, decayed
    score, box), the count per image [N] with return_rois_num (else None), the absolute
    indices [K, 1] with return_index (else None))."""
    fn = "matrix_nms"
    arguments.tensor(fn, "bboxes", bboxes)
    arguments.tensor(fn, "scores", scores)
    if len(bboxes.shape) != 3 or bboxes.shape[2] != 4:
        raise arguments.ArgumentError(f"{fn}: bboxes must be [N, M, 4], got shape "
                                      f"{list(bboxes.shape)}")
    n, m = int(bboxes.shape[0]), int(bboxes.shape[1])
    if len(scores.shape) != 3 or scores.shape[0] != n or scores.shape[2] != m:
        raise arguments.ArgumentError(f"{fn}: scores must be [N, C, M] = [{n}, C, {m}], got "
                                      f"shape {list(scores.shape)}")
    c = int(scores.shape[1])
    s_thresh = arguments.number(fn, "score_threshold", score_threshold)
    p_thresh = arguments.number(fn, "post_threshold", post_threshold)
    top = arguments.integer(fn, "nms_top_k", nms_top_k)
    keep_top = arguments.integer(fn, "keep_top_k", keep_top_k)
    sigma = arguments.number(fn, "gaussian_sigma", gaussian_sigma)
    background = arguments.integer(fn, "background_label", background_label)
    one = 0.0 if arguments.flag(fn, "normalized", normalized) else 1.0
    k = m if top < 0 else min(top, m)
    s = scores.detach()
    order = T.argsort(s, axis=-1, descending=True, stable=True)[:, :, :k]   # [N, C, K]
    ranked = T.take_along_axis(s, order, axis=-1)
    valid = ranked > s_thresh
    if 0 <= background < c:
        valid = T.logical_and(valid, (T.arange(c, dtype="int64") != background)
                              .reshape([1, c, 1]))
    boxes = T.take_along_axis(bboxes.detach().unsqueeze(1).expand([n, c, m, 4]),
                              order.unsqueeze(-1).expand([n, c, k, 4]), axis=2)
    decay = _decay(box_iou(boxes, boxes, one), valid, arguments.flag(fn, "use_gaussian",
                                                                       use_gaussian), sigma)
    decayed = ranked * decay
    kept = T.logical_and(valid, decayed > p_thresh)                    # [N, C, K]
    labels = T.expand(T.arange(c, dtype=s.dtype).reshape([1, c, 1]), [n, c, k])
    rows = T.concat([labels.unsqueeze(-1), decayed.unsqueeze(-1), boxes], axis=-1)
    images = T.arange(n, dtype="int64").reshape([n, 1, 1]) * m
    index = order + images
    flat_kept = kept.reshape([n, c * k])
    flat_score = T.where(flat_kept, decayed.reshape([n, c * k]),
                         T.full_like(decayed.reshape([n, c * k]), float("-inf")))
    best = T.argsort(flat_score, axis=-1, descending=True, stable=True)      # [N, C*K]
    count = T.sum(T.cast(flat_kept, "int64"), axis=1)
    if keep_top >= 0:
        count = T.clip(count, max=keep_top)
    take = T.arange(c * k, dtype="int64").unsqueeze(0) < count.unsqueeze(1)
    rows = T.take_along_axis(rows.reshape([n, c * k, 6]), best.unsqueeze(-1).expand(
        [n, c * k, 6]), axis=1)
    index = T.take_along_axis(index.reshape([n, c * k]), best, axis=1)
    out = T.masked_select(rows, take.unsqueeze(-1).expand([n, c * k, 6])).reshape([-1, 6])
    index = T.masked_select(index, take).reshape([-1, 1])
    # Paddle's order, with None for what is not asked for
    return (out, T.cast(count, "int32") if return_rois_num else None,
            index if return_index else None)
