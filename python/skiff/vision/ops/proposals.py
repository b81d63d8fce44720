"""RPN proposals (paddle.vision.ops.generate_proposals): per image, the pre_nms_top_n best
anchors decoded by their deltas, clipped to the image, small boxes dropped, then NMS and the
post_nms_top_n best kept. A loop over the images of the batch; each step is tensor ops."""
import math

from ...framework import arguments
from ... import tensor as T
from .nms import box_iou, greedy_keep

__all__ = ["generate_proposals"]

_MAX_LOG_RATIO = math.log(1000.0 / 16.0)


def _decode(anchors, deltas, variances, one):
    """Anchors [K, 4] moved by deltas [K, 4] scaled by variances (size ratios capped at
    1000 / 16)."""
    aw = anchors[:, 2] - anchors[:, 0] + one
    ah = anchors[:, 3] - anchors[:, 1] + one
    cx, cy = anchors[:, 0] + 0.5 * aw, anchors[:, 1] + 0.5 * ah
    d = deltas * variances
    cx, cy = d[:, 0] * aw + cx, d[:, 1] * ah + cy
    w = T.exp(T.clip(d[:, 2], max=_MAX_LOG_RATIO)) * aw
    h = T.exp(T.clip(d[:, 3], max=_MAX_LOG_RATIO)) * ah
    return T.stack([cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w - one, cy + 0.5 * h - one], 1)


def _adaptive_keep(iou, thresh, eta):
    """Greedy NMS whose threshold shrinks by eta after each kept box while above 0.5 (a box
    is kept when its IoU with every kept box is within the threshold of the moment): one
    vectorised step per box."""
    k = int(iou.shape[0])
    keep = T.zeros([k], dtype="bool")
    index = T.arange(k, dtype="int64")
    zeros = T.zeros([k], dtype=iou.dtype)
    for i in range(k):
        overlap = T.max(T.where(keep, iou[i], zeros))
        if float(overlap) <= thresh:
            keep = T.logical_or(keep, index == i)
            if eta < 1.0 and thresh > 0.5:
                thresh *= eta
    return keep


def generate_proposals(scores, bbox_deltas, img_size, anchors, variances, pre_nms_top_n=6000,
                       post_nms_top_n=1000, nms_thresh=0.5, min_size=0.1, eta=1.0,
                       pixel_offset=False, return_rois_num=False, name=None):
    """RPN proposals from scores [N, A, H, W], bbox_deltas [N, 4A, H, W], img_size [N, 2]
    (height, width), anchors and variances [H, W, A, 4]: (rois [R, 4], their scores [R, 1],
    and with return_rois_num the count per image [N], else None)."""
    fn = "generate_proposals"
    for param, t in (("scores", scores), ("bbox_deltas", bbox_deltas),
                     ("img_size", img_size), ("anchors", anchors), ("variances", variances)):
        arguments.tensor(fn, param, t)
    if len(scores.shape) != 4:
        raise arguments.ArgumentError(f"{fn}: scores must be [N, A, H, W], got shape "
                                      f"{list(scores.shape)}")
    n, a, h, w = [int(s) for s in scores.shape]
    checks = (("bbox_deltas", bbox_deltas, [n, 4 * a, h, w]), ("img_size", img_size, [n, 2]),
              ("anchors", anchors, [h, w, a, 4]), ("variances", variances, [h, w, a, 4]))
    for param, t, want in checks:
        if list(t.shape) != want:
            raise arguments.ArgumentError(f"{fn}: {param} must have shape {want} for scores "
                                          f"{list(scores.shape)}, got {list(t.shape)}")
    pre = arguments.integer(fn, "pre_nms_top_n", pre_nms_top_n)
    post = arguments.integer(fn, "post_nms_top_n", post_nms_top_n)
    thresh = arguments.number(fn, "nms_thresh", nms_thresh)
    min_size = max(arguments.number(fn, "min_size", min_size), 1.0)
    eta = arguments.number(fn, "eta", eta)
    one = 1.0 if arguments.flag(fn, "pixel_offset", pixel_offset) else 0.0
    dtype = arguments.dtype_name_of(scores)
    all_scores = T.transpose(scores, [0, 2, 3, 1]).reshape([n, -1])
    all_deltas = T.transpose(bbox_deltas.reshape([n, a, 4, h, w]), [0, 3, 4, 1, 2])
    all_deltas = all_deltas.reshape([n, -1, 4])
    flat_anchors, flat_vars = anchors.reshape([-1, 4]), variances.reshape([-1, 4])
    sizes = T.cast(img_size, dtype)
    total = h * w * a
    rois, probs, counts = [], [], []
    for i in range(n):
        k = total if pre <= 0 or pre >= total else pre
        top = T.argsort(all_scores[i], descending=True, stable=True)[:k]
        score = T.gather(all_scores[i], top)
        boxes = _decode(T.gather(flat_anchors, top), T.gather(all_deltas[i], top),
                        T.gather(flat_vars, top), one)
        im_h, im_w = sizes[i, 0], sizes[i, 1]
        boxes = T.stack([T.clip(T.minimum(boxes[:, 0], im_w - one), min=0.0),
                         T.clip(T.minimum(boxes[:, 1], im_h - one), min=0.0),
                         T.clip(T.minimum(boxes[:, 2], im_w - one), min=0.0),
                         T.clip(T.minimum(boxes[:, 3], im_h - one), min=0.0)], 1)
        bw = boxes[:, 2] - boxes[:, 0] + one
        bh = boxes[:, 3] - boxes[:, 1] + one
        big = T.logical_and(bw >= min_size, bh >= min_size)
        if one:
            big = T.logical_and(big, T.logical_and(boxes[:, 0] + bw / 2 <= im_w,
                                                   boxes[:, 1] + bh / 2 <= im_h))
        boxes = T.masked_select(boxes, big.unsqueeze(1).expand(boxes.shape)).reshape([-1, 4])
        score = T.masked_select(score, big)
        m = int(boxes.shape[0])
        if m:
            iou = box_iou(boxes, boxes, one)
            if eta < 1.0:
                keep = _adaptive_keep(iou, thresh, eta)
            else:
                earlier = T.triu(T.ones([m, m], dtype="int32"), diagonal=1) > 0
                keep = greedy_keep(T.logical_and(iou > thresh, earlier))
            boxes = T.masked_select(boxes, keep.unsqueeze(1).expand(boxes.shape))
            boxes, score = boxes.reshape([-1, 4]), T.masked_select(score, keep)
            if 0 < post < int(score.shape[0]):
                boxes, score = boxes[:post], score[:post]
        rois.append(boxes)
        probs.append(score.reshape([-1, 1]))
        counts.append(int(boxes.shape[0]))
    out_rois, out_probs = T.concat(rois), T.concat(probs)
    num = T.to_tensor(counts, dtype="int32") if return_rois_num else None
    return out_rois, out_probs, num
