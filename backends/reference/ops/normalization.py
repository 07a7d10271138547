"""Reference (float64 numpy) implementations of the normalization operators:
batchNormalization, instanceNormalization, layerNormalization.

All three follow the spec's emulation notes: (x - mean) / sqrt(variance +
epsilon) * scale + bias, with epsilon already cast to the input's data type by
the create steps ("Set options.epsilon to the result of casting ...").
Variance is the population variance, mean((x - mean)^2).
"""
from __future__ import annotations

import numpy as np


def _along(values: np.ndarray, axis: int, rank: int) -> np.ndarray:
    """A 1-D per-feature tensor shaped to broadcast along ``axis``."""
    shape = [1] * rank
    shape[axis] = values.shape[0]
    return values.reshape(shape)


def _normalize(x, mean, variance, epsilon, scale, bias):
    out = (x - mean) / np.sqrt(variance + epsilon)
    if scale is not None:
        out = out * scale
    if bias is not None:
        out = out + bias
    return out


def batchNormalization(input, mean, variance, axis, epsilon, scale=None, bias=None):
    r = input.ndim
    return _normalize(
        input, _along(mean, axis, r), _along(variance, axis, r), epsilon,
        None if scale is None else _along(scale, axis, r),
        None if bias is None else _along(bias, axis, r),
    )


def _moments(x: np.ndarray, axes: tuple[int, ...]):
    mean = np.mean(x, axis=axes, keepdims=True)
    variance = np.mean(np.square(x - mean), axis=axes, keepdims=True)
    return mean, variance


def instanceNormalization(input, epsilon, layout, scale=None, bias=None):
    # Statistics per sample and channel over the spatial dimensions.
    channel, spatial = (1, (2, 3)) if layout == "nchw" else (3, (1, 2))
    mean, variance = _moments(input, spatial)
    return _normalize(
        input, mean, variance, epsilon,
        None if scale is None else _along(scale, channel, 4),
        None if bias is None else _along(bias, channel, 4),
    )


def _over_axes(values: np.ndarray, axes: list[int], shape: tuple[int, ...]) -> np.ndarray:
    """scale/bias have dims [shape[axes[0]], shape[axes[1]], ...] in the order of
    ``axes`` (which need not be sorted); put them at those input positions."""
    order = np.argsort(axes)
    placed = np.transpose(values, order) if values.ndim else values
    return placed.reshape([d if i in axes else 1 for i, d in enumerate(shape)])


def layerNormalization(input, axes, epsilon, scale=None, bias=None):
    # Empty axes: the mean is each element itself and the variance 0, so the
    # result is bias (or 0): spec "If empty, no dimensions are reduced."
    mean, variance = _moments(input, tuple(axes))
    return _normalize(
        input, mean, variance, epsilon,
        None if scale is None else _over_axes(scale, axes, input.shape),
        None if bias is None else _over_axes(bias, axes, input.shape),
    )


OPS = {
    "batchNormalization": batchNormalization,
    "instanceNormalization": instanceNormalization,
    "layerNormalization": layerNormalization,
}
