"""The fixed, versioned kernel suite: what is timed, at which shapes, and how much work it is.

Bump `SUITE_VERSION` whenever a kernel, a shape, a dtype or a work count changes: results of
different versions are not comparable. GPU shapes fill an H100/H200-class chip (hundreds of MB
per tensor, GEMMs of 8192^3); CPU shapes stay small so the quick suite fits CI.

Each kernel gives the function to run (eagerly and through `torch.compile`), a way to draw
inputs from a seed (correctness is checked on a fresh draw too), and the minimum bytes it must
move and floating-point operations it must do, for achieved GB/s and TFLOP/s against the
measured ceilings.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

SUITE_VERSION = "2026.11.1"

SUITES = {
    "quick": ("layernorm_gelu", "softmax", "gemm_bias_relu"),
    "full": (
        "layernorm_gelu",
        "softmax",
        "gemm_bias_relu",
        "sdpa",
        "naive_attention",
        "transformer_block",
    ),
}

# Relative error ||compiled - eager|| / ||eager|| allowed per dtype (norm-wise, float64 math).
TOLERANCE = {torch.float32: 1e-4, torch.bfloat16: 1e-2, torch.float16: 5e-3}


@dataclass(frozen=True)
class Work:
    """How much a call must do at the chosen shapes: minimum bytes moved and FLOPs."""

    bytes_moved: float
    flops: float
    bound: str  # "memory" or "compute": which ceiling the achieved rate is set against
    shape: str


@dataclass(frozen=True)
class Kernel:
    """One suite entry.

    `make_fn(device, dtype, scale)` builds the callable (a function or a module with seeded
    weights); `make_inputs(device, dtype, scale, seed)` draws its arguments; `work(dtype, scale)`
    counts what one call must do. `scale` is "gpu" or "cpu" (which shapes to use).
    """

    name: str
    category: str
    description: str
    make_fn: Callable[[torch.device, torch.dtype, str], Callable[..., torch.Tensor]]
    make_inputs: Callable[[torch.device, torch.dtype, str, int], tuple[torch.Tensor, ...]]
    work: Callable[[torch.dtype, str], Work]


def _randn(
    shape: tuple[int, ...],
    device: torch.device,
    dtype: torch.dtype,
    gen: torch.Generator,
    std: float = 1.0,
) -> torch.Tensor:
    return (torch.randn(shape, generator=gen, device=device, dtype=torch.float32) * std).to(dtype)


def _gen(device: torch.device, seed: int) -> torch.Generator:
    gen = torch.Generator(device=device)
    gen.manual_seed(seed)
    return gen


def _esize(dtype: torch.dtype) -> int:
    return torch.empty((), dtype=dtype).element_size()


# ------------------------------------------------------------------ memory-bound fusion
ROWS_COLS = {"gpu": (32768, 4096), "cpu": (512, 1024)}


def layernorm_gelu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """GELU(LayerNorm(x)): eager runs two kernels; Inductor generates one kernel for both, so the
    normalised tensor is not written to memory and read back (the `inductor` record shows it)."""
    return F.gelu(F.layer_norm(x, (x.shape[-1],), weight, bias))


def _rowwise_inputs(
    device: torch.device, dtype: torch.dtype, scale: str, seed: int, with_affine: bool
) -> tuple[torch.Tensor, ...]:
    rows, cols = ROWS_COLS[scale]
    gen = _gen(device, seed)
    x = _randn((rows, cols), device, dtype, gen)
    if not with_affine:
        return (x,)
    return x, 1 + _randn((cols,), device, dtype, gen, 0.1), _randn((cols,), device, dtype, gen, 0.1)


def _rowwise_work(dtype: torch.dtype, scale: str) -> Work:
    rows, cols = ROWS_COLS[scale]
    return Work(
        bytes_moved=2 * rows * cols * _esize(dtype),
        flops=0.0,
        bound="memory",
        shape=f"[{rows}, {cols}]",
    )


def scaled_softmax(x: torch.Tensor) -> torch.Tensor:
    """softmax(x / sqrt(d)) over the last dim: eager scales, then normalises (two kernels);
    Inductor generates one kernel for both."""
    return torch.softmax(x * (1.0 / math.sqrt(x.shape[-1])), dim=-1)


# ------------------------------------------------------------------ GEMM with epilogue
GEMM_MNK = {"gpu": (8192, 8192, 8192), "cpu": (256, 512, 512)}


def gemm_bias_relu(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """relu(x @ w + b): Inductor calls the library GEMM (`mm` on CUDA, then one generated kernel
    for the bias and the ReLU; on a CPU `addmm` with the bias folded in, then one for the ReLU):
    two kernel calls, the epilogue not fused into the GEMM (default mode; the probe does not use
    max-autotune's Triton GEMM templates)."""
    return torch.relu(x @ w + b)


def _gemm_inputs(
    device: torch.device, dtype: torch.dtype, scale: str, seed: int
) -> tuple[torch.Tensor, ...]:
    m, n, k = GEMM_MNK[scale]
    gen = _gen(device, seed)
    return (
        _randn((m, k), device, dtype, gen),
        _randn((k, n), device, dtype, gen, k**-0.5),
        _randn((n,), device, dtype, gen),
    )


def _gemm_work(dtype: torch.dtype, scale: str) -> Work:
    m, n, k = GEMM_MNK[scale]
    return Work(
        bytes_moved=(m * k + k * n + n + m * n) * _esize(dtype),
        flops=2.0 * m * n * k,
        bound="compute",
        shape=f"M={m} N={n} K={k}",
    )


# ------------------------------------------------------------------ attention
ATTN_BHSD = {"gpu": (8, 16, 2048, 128), "cpu": (1, 4, 128, 32)}


def sdpa(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Fused scaled-dot-product attention: one library kernel, eager and compiled alike (cuDNN's
    on an H100/H200 with torch 2.11; flash or memory-efficient where those are chosen)."""
    return F.scaled_dot_product_attention(q, k, v)


def naive_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """softmax(q k^T / sqrt(d)) v written out. Inductor does not generate code for it: its
    attention pattern pass (`fuse_attention`) replaces the whole pattern by the library SDPA
    kernel (cuDNN's `aten._scaled_dot_product_cudnn_attention` on an H100/H200 with torch 2.11,
    `aten._scaled_dot_product_flash_attention_for_cpu` on a CPU), so the compiled variant times
    the same kernel as `sdpa` (its `inductor` record names the substitution, and the summary
    gives the geomean without it)."""
    scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
    return torch.softmax(scores, dim=-1) @ v


def _attn_inputs(
    device: torch.device, dtype: torch.dtype, scale: str, seed: int
) -> tuple[torch.Tensor, ...]:
    b, h, s, d = ATTN_BHSD[scale]
    gen = _gen(device, seed)
    return tuple(_randn((b, h, s, d), device, dtype, gen) for _ in range(3))


def _attn_work(dtype: torch.dtype, scale: str) -> Work:
    b, h, s, d = ATTN_BHSD[scale]
    return Work(
        bytes_moved=4 * b * h * s * d * _esize(dtype),
        flops=4.0 * b * h * s * s * d,
        bound="compute",
        shape=f"B={b} H={h} S={s} D={d}",
    )


# ------------------------------------------------------------------ a small transformer block
BLOCK = {
    "gpu": dict(batch=8, seq=2048, dim=1024, heads=16, ffn=4096),
    "cpu": dict(batch=1, seq=64, dim=128, heads=4, ffn=512),
}


class TransformerBlock(nn.Module):
    """Pre-LayerNorm block: attention (SDPA) and a GELU MLP, each with a residual."""

    def __init__(self, dim: int, heads: int, ffn: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, ffn)
        self.down = nn.Linear(ffn, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, d // self.heads).unbind(2)
        attn = F.scaled_dot_product_attention(
            q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        )
        x = x + self.proj(attn.transpose(1, 2).reshape(b, s, d))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


def _make_block(device: torch.device, dtype: torch.dtype, scale: str) -> nn.Module:
    cfg = BLOCK[scale]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1234)
        block = TransformerBlock(cfg["dim"], cfg["heads"], cfg["ffn"])
    return block.to(device=device, dtype=dtype).eval()


def _block_inputs(
    device: torch.device, dtype: torch.dtype, scale: str, seed: int
) -> tuple[torch.Tensor, ...]:
    cfg = BLOCK[scale]
    return (_randn((cfg["batch"], cfg["seq"], cfg["dim"]), device, dtype, _gen(device, seed)),)


def _block_work(dtype: torch.dtype, scale: str) -> Work:
    c = BLOCK[scale]
    tokens, d, f = c["batch"] * c["seq"], c["dim"], c["ffn"]
    params = 4 * d * d + 2 * d * f
    flops = 2.0 * tokens * params + 4.0 * c["batch"] * c["seq"] ** 2 * d
    return Work(
        bytes_moved=(2 * tokens * d + params) * _esize(dtype),
        flops=flops,
        bound="compute",
        shape=f"B={c['batch']} S={c['seq']} d={d} H={c['heads']} ffn={f}",
    )


def _function(fn: Callable[..., torch.Tensor]) -> Callable[[Any, Any, Any], Callable]:
    return lambda device, dtype, scale: fn


KERNELS: dict[str, Kernel] = {
    k.name: k
    for k in (
        Kernel(
            "layernorm_gelu",
            "memory-bound fusion",
            "GELU(LayerNorm(x)) over rows",
            _function(layernorm_gelu),
            lambda dev, dt, sc, seed: _rowwise_inputs(dev, dt, sc, seed, True),
            _rowwise_work,
        ),
        Kernel(
            "softmax",
            "memory-bound fusion",
            "softmax(x / sqrt(d)) over rows",
            _function(scaled_softmax),
            lambda dev, dt, sc, seed: _rowwise_inputs(dev, dt, sc, seed, False),
            _rowwise_work,
        ),
        Kernel(
            "gemm_bias_relu",
            "gemm+epilogue",
            "relu(x @ w + b)",
            _function(gemm_bias_relu),
            _gemm_inputs,
            _gemm_work,
        ),
        Kernel(
            "sdpa",
            "attention",
            "F.scaled_dot_product_attention(q, k, v)",
            _function(sdpa),
            _attn_inputs,
            _attn_work,
        ),
        Kernel(
            "naive_attention",
            "attention",
            "softmax(q k^T / sqrt(d)) v, same shapes as sdpa",
            _function(naive_attention),
            _attn_inputs,
            _attn_work,
        ),
        Kernel(
            "transformer_block",
            "transformer block",
            "pre-LN attention + GELU MLP block",
            _make_block,
            _block_inputs,
            _block_work,
        ),
    )
}


def kernels_for(suite: str) -> list[Kernel]:
    """The kernels of a named suite, in order."""
    if suite not in SUITES:
        raise ValueError(f"--suite must be one of {sorted(SUITES)}, not {suite!r}")
    return [KERNELS[name] for name in SUITES[suite]]
