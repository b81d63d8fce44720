"""paddle.nn.functional.affine_grid: the sampling grid of an affine transform, for
grid_sample: each output position's normalised coordinates (x, y[, z], 1) times theta^T."""
from ...framework.arguments import ArgumentError, dtype_name_of, is_tensor
from ...tensor import arange, full, linspace, matmul, meshgrid, reshape, stack, transpose

__all__ = ["affine_grid"]


def _coords(n, align_corners, dtype):
    """The normalised centres of n positions along one dim, in [-1, 1]."""
    if align_corners:
        return linspace(-1.0, 1.0, n, dtype=dtype) if n > 1 else full([1], 0.0, dtype)
    return (arange(0, n, dtype=dtype) * 2.0 + 1.0) / float(n) - 1.0


def affine_grid(theta, out_shape, align_corners=True, name=None):
    """theta [N, 2, 3] with out_shape [N, C, H, W] gives the grid [N, H, W, 2]; theta
    [N, 3, 4] with [N, C, D, H, W] gives [N, D, H, W, 3] (x first)."""
    if is_tensor(out_shape):
        out_shape = [int(v) for v in out_shape.numpy().reshape(-1).tolist()]
    shape = [int(v) for v in out_shape]
    dims = len(shape) - 2
    if dims not in (2, 3):
        raise ArgumentError(f"affine_grid: out_shape must have 4 or 5 entries, got {shape}")
    want = [shape[0], dims, dims + 1]
    if [int(d) for d in theta.shape] != want:
        raise ArgumentError(f"affine_grid: theta must be {want} for out_shape {shape}, got "
                            f"{list(theta.shape)}")
    if dtype_name_of(theta) not in ("float32", "float64"):
        raise ArgumentError(f"affine_grid: theta must be float32 or float64, got "
                            f"{dtype_name_of(theta)}")
    dtype = dtype_name_of(theta)
    sizes = shape[2:]  # (H, W) or (D, H, W)
    axes = meshgrid(*[_coords(s, align_corners, dtype) for s in sizes])
    ones = full(sizes, 1.0, dtype)
    base = stack(list(reversed(axes)) + [ones], axis=-1)  # (x, y[, z], 1)
    base = reshape(base, [1, -1, dims + 1])
    grid = matmul(base.expand([shape[0], base.shape[1], dims + 1]), transpose(theta, [0, 2, 1]))
    return reshape(grid, [shape[0]] + sizes + [dims])
