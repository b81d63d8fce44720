"""Detection and vision operators in Paddle's `paddle.vision.ops` API: RoI pooling and
alignment, deformable convolution, box coding, anchors, YOLO decoding and loss, and the
box selections (nms, matrix_nms, FPN level assignment, proposals).

    from skiff.vision.ops import roi_align
    out = roi_align(features, boxes, boxes_num, output_size=7, spatial_scale=1 / 16)
"""
from .deform_conv import DeformConv2D, deform_conv2d
from .roi_align import RoIAlign, roi_align
from .roi_pool import PSRoIPool, RoIPool, psroi_pool, roi_pool

__all__ = [
    "deform_conv2d",
    "DeformConv2D",
    "roi_pool",
    "RoIPool",
    "psroi_pool",
    "PSRoIPool",
    "roi_align",
    "RoIAlign",
]
