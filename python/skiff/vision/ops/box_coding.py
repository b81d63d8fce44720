"""Box coding and anchors: box_coder (center-size encoding of boxes against priors, and its
inverse), prior_box (SSD's prior boxes of a feature map) and yolo_box (YOLOv3's boxes and
scores from a head's output), as tensor expressions in Paddle's conventions."""
import numpy as np

from ...framework import arguments
from ... import tensor as T

__all__ = ["box_coder", "prior_box", "yolo_box"]


def _center_size(boxes, one):
    """Width, height and center (each [..]) of boxes [.., 4]; ``one`` is added to the
    extents of unnormalized (pixel) boxes."""
    w = boxes[..., 2] - boxes[..., 0] + one
    h = boxes[..., 3] - boxes[..., 1] + one
    return w, h, boxes[..., 0] + w * 0.5, boxes[..., 1] + h * 0.5


def box_coder(prior_box, prior_box_var, target_box, code_type="encode_center_size",
              box_normalized=True, axis=0, name=None):
    """Encodes target_box [N, 4] against prior_box [M, 4] ([N, M, 4]: offsets of the
    centers over the prior's size, log of the size ratios, divided by the variances), or
    decodes target_box [N, M, 4] (priors along ``axis``) back to corner boxes."""
    fn = "box_coder"
    code_type = arguments.choice(fn, "code_type", code_type,
                                 ("encode_center_size", "decode_center_size"))
    normalized = arguments.flag(fn, "box_normalized", box_normalized)
    axis = arguments.integer(fn, "axis", axis)
    arguments.tensor(fn, "prior_box", prior_box)
    arguments.tensor(fn, "target_box", target_box)
    arguments.dtype_in(fn, "prior_box", prior_box, ("float32", "float64"))
    if len(prior_box.shape) != 2 or prior_box.shape[1] != 4:
        raise arguments.ArgumentError(f"{fn}: prior_box must be [M, 4], got shape "
                                      f"{list(prior_box.shape)}")
    dtype = arguments.dtype_name_of(prior_box)
    if arguments.is_tensor(prior_box_var):
        if list(prior_box_var.shape) != list(prior_box.shape):
            raise arguments.ArgumentError(f"{fn}: prior_box_var must have prior_box's shape "
                                          f"{list(prior_box.shape)}, got "
                                          f"{list(prior_box_var.shape)}")
        var = prior_box_var
    elif isinstance(prior_box_var, (list, tuple)) and len(prior_box_var) == 4:
        var = T.to_tensor([arguments.number(fn, "prior_box_var", v) for v in prior_box_var],
                          dtype=dtype)
    else:
        raise arguments.ArgumentTypeError(f"{fn}: prior_box_var must be a Tensor [M, 4], a "
                                          f"list of 4 floats or None, got {prior_box_var!r}")
    one = 0.0 if normalized else 1.0
    pw, ph, pcx, pcy = _center_size(prior_box, one)
    if code_type == "encode_center_size":
        if len(target_box.shape) != 2 or target_box.shape[1] != 4:
            raise arguments.ArgumentError(f"{fn}: target_box must be [N, 4] to encode, got "
                                          f"shape {list(target_box.shape)}")
        tw, th, _, _ = [v.unsqueeze(1) for v in _center_size(target_box, one)]
        # a target's center is its corners' midpoint (a prior's is x1 + w / 2, w with one)
        tcx = ((target_box[:, 0] + target_box[:, 2]) * 0.5).unsqueeze(1)
        tcy = ((target_box[:, 1] + target_box[:, 3]) * 0.5).unsqueeze(1)
        out = T.stack([(tcx - pcx) / pw, (tcy - pcy) / ph, T.log(T.abs(tw / pw)),
                       T.log(T.abs(th / ph))], axis=-1)                # [N, M, 4]
        return out / (var if len(var.shape) == 1 else var.unsqueeze(0))
    if len(target_box.shape) != 3 or target_box.shape[2] != 4:
        raise arguments.ArgumentError(f"{fn}: target_box must be [N, M, 4] to decode, got "
                                      f"shape {list(target_box.shape)}")
    if axis not in (0, 1):
        raise arguments.ArgumentError(f"{fn}: axis must be 0 or 1, got {axis}")
    if target_box.shape[1 - axis] != prior_box.shape[0]:
        raise arguments.ArgumentError(
            f"{fn}: target_box {list(target_box.shape)} must have prior_box's "
            f"{prior_box.shape[0]} boxes along dim {1 - axis} (axis={axis})")
    pw, ph, pcx, pcy = [v.unsqueeze(axis) for v in (pw, ph, pcx, pcy)]
    t = target_box * (var if len(var.shape) == 1 else var.unsqueeze(axis))
    cx = t[..., 0] * pw + pcx
    cy = t[..., 1] * ph + pcy
    w = T.exp(t[..., 2]) * pw
    h = T.exp(t[..., 3]) * ph
    return T.stack([cx - w * 0.5, cy - h * 0.5, cx + w * 0.5 - one, cy + h * 0.5 - one],
                   axis=-1)


def _floats(fn, param, value):
    if isinstance(value, (list, tuple)):
        return [arguments.number(fn, f"{param}[{i}]", v) for i, v in enumerate(value)]
    return [arguments.number(fn, param, value)]


def _aspect_ratios(ratios, flip):
    """1, then each ratio not seen yet (and its inverse with flip)."""
    out = [1.0]
    for r in ratios:
        for v in ([r, 1.0 / r] if flip else [r]):
            if all(abs(v - o) >= 1e-6 for o in out):
                out.append(v)
    return out


def prior_box(input, image, min_sizes, max_sizes=None, aspect_ratios=[1.0],
              variance=[0.1, 0.1, 0.2, 0.2], flip=False, clip=False, steps=[0.0, 0.0],
              offset=0.5, min_max_aspect_ratios_order=False, name=None):
    """SSD prior boxes for the feature map ``input`` [N, C, H, W] over ``image`` [N, C, Hi,
    Wi]: (boxes, variances), each [H, W, num_priors, 4], corners normalized by the image."""
    fn = "prior_box"
    for param, t in (("input", input), ("image", image)):
        if len(arguments.tensor(fn, param, t).shape) != 4:
            raise arguments.ArgumentError(f"{fn}: {param} must be 4-D [N, C, H, W], got "
                                          f"shape {list(t.shape)}")
    mins = _floats(fn, "min_sizes", min_sizes)
    maxs = [] if max_sizes is None else _floats(fn, "max_sizes", max_sizes)
    if maxs and len(maxs) != len(mins):
        raise arguments.ArgumentError(f"{fn}: max_sizes must hold one size per min_size "
                                      f"({len(mins)}), got {len(maxs)}")
    if any(m <= 0 for m in mins) or any(a <= b for a, b in zip(maxs, mins)):
        raise arguments.ArgumentError(f"{fn}: min_sizes must be > 0 and each max_size > its "
                                      f"min_size, got {mins} and {maxs}")
    ratios = _aspect_ratios(_floats(fn, "aspect_ratios", aspect_ratios),
                            arguments.flag(fn, "flip", flip))
    var = _floats(fn, "variance", variance)
    step = _floats(fn, "steps", steps)
    if len(var) != 4 or len(step) != 2:
        raise arguments.ArgumentError(f"{fn}: variance must hold 4 floats and steps 2, got "
                                      f"{var} and {step}")
    offset = arguments.number(fn, "offset", offset)
    h, w = int(input.shape[2]), int(input.shape[3])
    img_h, img_w = int(image.shape[2]), int(image.shape[3])
    step_w = step[0] if step[0] > 0 else img_w / w
    step_h = step[1] if step[1] > 0 else img_h / h
    sizes = []                                                         # (box w, box h)
    for s, m in enumerate(mins):
        big = [(np.sqrt(m * maxs[s]),) * 2] if maxs else []
        shaped = [(m * np.sqrt(r), m / np.sqrt(r)) for r in ratios]
        if min_max_aspect_ratios_order:
            sizes += [(m, m)] + big + [sz for r, sz in zip(ratios, shaped) if abs(r - 1) >= 1e-6]
        else:
            sizes += shaped + big
    bw, bh = np.array(sizes).T                                        # [P]
    cx = ((np.arange(w) + offset) * step_w)[None, :, None]
    cy = ((np.arange(h) + offset) * step_h)[:, None, None]
    boxes = np.stack(np.broadcast_arrays((cx - bw / 2) / img_w, (cy - bh / 2) / img_h,
                                         (cx + bw / 2) / img_w, (cy + bh / 2) / img_h), -1)
    if arguments.flag(fn, "clip", clip):
        boxes = np.clip(boxes, 0.0, 1.0)
    variances = np.broadcast_to(np.array(var), boxes.shape)
    dtype = arguments.dtype_name_of(input)
    return (T.to_tensor(boxes.astype(dtype)), T.to_tensor(variances.astype(dtype)))


def yolo_box(x, img_size, anchors, class_num, conf_thresh, downsample_ratio, clip_bbox=True,
             name=None, scale_x_y=1.0, iou_aware=False, iou_aware_factor=0.5):
    """YOLOv3 boxes [N, A * H * W, 4] (corners in the image's pixels) and scores
    [N, A * H * W, class_num] from a head's output x [N, A * (5 + class_num), H, W] (with
    iou_aware, A more channels first); a box whose confidence is below conf_thresh is 0."""
    fn = "yolo_box"
    arguments.tensor(fn, "x", x)
    arguments.tensor(fn, "img_size", img_size)
    anchors = arguments.integers(fn, "anchors", anchors)
    if not anchors or len(anchors) % 2:
        raise arguments.ArgumentError(f"{fn}: anchors must hold (w, h) pairs, got {anchors}")
    a = len(anchors) // 2
    classes = arguments.count(fn, "class_num", class_num, low=1)
    thresh = arguments.number(fn, "conf_thresh", conf_thresh)
    ratio = arguments.count(fn, "downsample_ratio", downsample_ratio, low=1)
    scale = arguments.number(fn, "scale_x_y", scale_x_y)
    iou_aware = arguments.flag(fn, "iou_aware", iou_aware)
    factor = arguments.number(fn, "iou_aware_factor", iou_aware_factor)
    per = 5 + classes
    want = a * (per + (1 if iou_aware else 0))
    if len(x.shape) != 4 or x.shape[1] != want:
        raise arguments.ArgumentError(
            f"{fn}: x must be [N, {want}, H, W] for {a} anchors and class_num={classes}"
            f"{' with iou_aware' if iou_aware else ''}, got shape {list(x.shape)}")
    n, _, h, w = [int(s) for s in x.shape]
    if list(img_size.shape) != [n, 2]:
        raise arguments.ArgumentError(f"{fn}: img_size must be [N, 2] = [{n}, 2], got shape "
                                      f"{list(img_size.shape)}")
    dtype = arguments.dtype_name_of(x)
    head = x[:, a * (1 if iou_aware else 0):].reshape([n, a, per, h, w])
    conf = T.sigmoid(head[:, :, 4])
    if iou_aware:
        conf = T.pow(conf, 1.0 - factor) * T.pow(T.sigmoid(x[:, :a]), factor)
    keep = T.cast(conf >= thresh, dtype)                               # [N, A, H, W]
    size = T.cast(img_size, dtype)
    img_h, img_w = size[:, 0].reshape([n, 1, 1, 1]), size[:, 1].reshape([n, 1, 1, 1])
    bias = -0.5 * (scale - 1.0)
    cols = T.arange(w, dtype=dtype).reshape([1, 1, 1, w])
    rows = T.arange(h, dtype=dtype).reshape([1, 1, h, 1])
    sizes = T.to_tensor(np.array(anchors, dtype=dtype).reshape(a, 2))
    cx = (cols + T.sigmoid(head[:, :, 0]) * scale + bias) * img_w / w
    cy = (rows + T.sigmoid(head[:, :, 1]) * scale + bias) * img_h / h
    bw = T.exp(head[:, :, 2]) * sizes[:, 0].reshape([1, a, 1, 1]) * img_w / (ratio * w)
    bh = T.exp(head[:, :, 3]) * sizes[:, 1].reshape([1, a, 1, 1]) * img_h / (ratio * h)
    x1, y1, x2, y2 = cx - bw * 0.5, cy - bh * 0.5, cx + bw * 0.5, cy + bh * 0.5
    if arguments.flag(fn, "clip_bbox", clip_bbox):
        zero = T.zeros_like(x1)
        x1, y1 = T.maximum(x1, zero), T.maximum(y1, zero)
        x2, y2 = T.minimum(x2, img_w - 1.0), T.minimum(y2, img_h - 1.0)
    boxes = T.stack([x1, y1, x2, y2], axis=-1) * keep.unsqueeze(-1)    # [N, A, H, W, 4]
    scores = T.sigmoid(head[:, :, 5:]) * (conf * keep).unsqueeze(2)    # [N, A, C, H, W]
    scores = T.transpose(scores, [0, 1, 3, 4, 2])
    return boxes.reshape([n, -1, 4]), scores.reshape([n, -1, classes])
