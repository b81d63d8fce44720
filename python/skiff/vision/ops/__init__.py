"""Detection and vision operators in Paddle's `paddle.vision.ops` API: RoI pooling and
alignment, deformable convolution, box coding, anchors, YOLO decoding and loss, the box
selections (nms, matrix_nms, FPN levels, RPN proposals) and image file decoding.

    from skiff.vision.ops import roi_align
    out = roi_align(features, boxes, boxes_num, output_size=7, spatial_scale=1 / 16)
"""
from .box_coding import box_coder, prior_box, yolo_box
from .deform_conv import DeformConv2D, deform_conv2d
from .fpn import distribute_fpn_proposals
from .image_io import decode_jpeg, read_file
from .nms import matrix_nms, nms
from .proposals import generate_proposals
from .roi_align import RoIAlign, roi_align
from .roi_pool import PSRoIPool, RoIPool, psroi_pool, roi_pool
from .yolo_loss import yolo_loss

__all__ = [
    "yolo_loss",
    "yolo_box",
    "prior_box",
    "box_coder",
    "deform_conv2d",
    "DeformConv2D",
    "distribute_fpn_proposals",
    "generate_proposals",
    "read_file",
    "decode_jpeg",
    "roi_pool",
    "RoIPool",
    "psroi_pool",
    "PSRoIPool",
    "roi_align",
    "RoIAlign",
    "nms",
    "matrix_nms",
]
