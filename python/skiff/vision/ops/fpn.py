"""FPN level assignment (paddle.vision.ops.distribute_fpn_proposals): each RoI goes to the
pyramid level floor(refer_level + log2(sqrt(area) / refer_scale)), clipped to [min_level,
max_level]; the RoIs of each level keep their order, and restore_ind gives each RoI's
place among the levels' RoIs one after another."""
from ...framework import arguments
from ... import tensor as T
from .roi_inputs import box_images

__all__ = ["distribute_fpn_proposals"]


def fpn_levels(rois, min_level, max_level, refer_level, refer_scale, pixel_offset):
    """The level (int64 [R]) of each RoI [R, 4]."""
    one = 1.0 if pixel_offset else 0.0
    w, h = rois[:, 2] - rois[:, 0] + one, rois[:, 3] - rois[:, 1] + one
    area = T.where(T.logical_and(w > 0, h > 0), w * h, T.zeros_like(w))
    level = T.floor(T.log2(T.sqrt(area) / float(refer_scale) + 1e-8) + float(refer_level))
    return T.cast(T.clip(level, float(min_level), float(max_level)), "int64")


def distribute_fpn_proposals(fpn_rois, min_level, max_level, refer_level, refer_scale,
                             pixel_offset=False, rois_num=None, name=None):
    """Splits fpn_rois [R, 4] by FPN level: (the RoIs of each level from min_level to
    max_level, restore_ind int32 [R, 1], the RoIs per image [B] on each level (int32), or
    None without rois_num)."""
    fn = "distribute_fpn_proposals"
    arguments.tensor(fn, "fpn_rois", fpn_rois)
    arguments.dtype_in(fn, "fpn_rois", fpn_rois, ("float32", "float64"))
    if len(fpn_rois.shape) != 2 or fpn_rois.shape[1] != 4:
        raise arguments.ArgumentError(f"{fn}: fpn_rois must be [R, 4], got shape "
                                      f"{list(fpn_rois.shape)}")
    lo = arguments.integer(fn, "min_level", min_level)
    hi = arguments.integer(fn, "max_level", max_level)
    if hi < lo:
        raise arguments.ArgumentError(f"{fn}: max_level ({hi}) must be >= min_level ({lo})")
    ref_level = arguments.integer(fn, "refer_level", refer_level)
    ref_scale = arguments.real(fn, "refer_scale", refer_scale, above=0.0)
    if rois_num is not None:
        arguments.tensor(fn, "rois_num", rois_num)
        arguments.dtype_in(fn, "rois_num", rois_num, ("int32", "int64"))
        if len(rois_num.shape) != 1:
            raise arguments.ArgumentError(f"{fn}: rois_num must be 1-D [B], got shape "
                                          f"{list(rois_num.shape)}")
    level = fpn_levels(fpn_rois, lo, hi, ref_level, ref_scale,
                       arguments.flag(fn, "pixel_offset", pixel_offset))
    position = T.cumsum(T.ones_like(level), axis=0) - 1
    multi_rois, order = [], []
    images = None
    if rois_num is not None:
        b = int(rois_num.shape[0])
        images = box_images(fpn_rois, rois_num).unsqueeze(1) == \
            T.arange(b, dtype="int64").unsqueeze(0)                   # [R, B]
    per_level = []
    for lvl in range(lo, hi + 1):
        on = level == lvl
        multi_rois.append(T.masked_select(fpn_rois, on.unsqueeze(1).expand(
            fpn_rois.shape)).reshape([-1, 4]))
        order.append(T.masked_select(position, on))
        if images is not None:
            per_level.append(T.cast(T.sum(T.cast(T.logical_and(images, on.unsqueeze(1)),
                                                 "int32"), axis=0), "int32"))
    restore = T.argsort(T.concat(order), axis=0)
    return (multi_rois, T.cast(restore, "int32").reshape([-1, 1]),
            per_level if rois_num is not None else None)
