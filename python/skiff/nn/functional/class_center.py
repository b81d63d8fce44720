"""paddle.nn.functional.class_center_sample (PartialFC): the class centers a batch
trains, its positive classes and random negatives up to num_samples, and the labels
renumbered into them."""
from ...framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of
from ...tensor import (arange, argsort, cast, concat, gather, masked_select, ones, rand,
                       scatter, unique, zeros)

__all__ = ["class_center_sample"]


def class_center_sample(label, num_classes, num_samples, group=None):
    """(remapped_label, sampled_class_index): the sorted distinct classes of label, then
    random other classes until num_samples (all positives if more); remapped_label is
    each label's place in that list. Both in label's dtype. Single process: group must
    be None or False."""
    fn = "class_center_sample"
    if dtype_name_of(label) not in ("int32", "int64"):
        raise ArgumentTypeError(f"{fn}: label must be int32 or int64, got "
                                f"{dtype_name_of(label)}")
    if len(label.shape) != 1:
        raise ArgumentError(f"{fn}: label must be 1-D, got shape {list(label.shape)}")
    for what, v in (("num_classes", num_classes), ("num_samples", num_samples)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ArgumentError(f"{fn}: {what} must be a positive int, got {v!r}")
    if num_samples > num_classes:
        raise ArgumentError(f"{fn}: num_samples ({num_samples}) must not exceed num_classes "
                            f"({num_classes})")
    if group not in (None, False):
        raise ArgumentError(f"{fn}: model-parallel groups need several processes; pass "
                            f"group=None")
    dtype = dtype_name_of(label)
    if int(label.shape[0]) and (int(label.min()) < 0 or int(label.max()) >= num_classes):
        raise ArgumentError(f"{fn}: label must lie in [0, {num_classes})")
    positives, remapped = unique(cast(label, "int64"), return_inverse=True)
    extra = num_samples - int(positives.shape[0])
    sampled = positives
    if extra > 0:
        taken = scatter(zeros([num_classes], "int64"), positives,
                        ones([int(positives.shape[0])], "int64"))
        negatives = masked_select(arange(0, num_classes, dtype="int64"), taken == 0)
        pick = argsort(rand([int(negatives.shape[0])]))[:extra]
        sampled = concat([positives, gather(negatives, pick)])
    return cast(remapped, dtype), cast(sampled, dtype)
