"""What the probe runs on: backend, device, versions, CPU, clocks and the compile-cache state.

The backend is told apart the way PyTorch itself does it: ROCm builds also answer to "cuda", so
`torch.version.hip` decides between `rocm` and `cuda`; Apple GPUs are `mps`; otherwise `cpu`.
"""

from __future__ import annotations

import os
import platform
import shutil
import socket
import subprocess
from pathlib import Path

import torch


def resolve_device(requested: str) -> torch.device:
    """The torch device for `--device auto|cuda|cpu|mps` ("auto" picks an accelerator if any)."""
    if requested == "auto":
        if torch.cuda.is_available():
            return torch.device("cuda")
        if getattr(torch.backends, "mps", None) and torch.backends.mps.is_available():
            return torch.device("mps")
        return torch.device("cpu")
    if requested == "cuda" and not torch.cuda.is_available():
        raise RuntimeError(
            "--device cuda asked for, but torch.cuda.is_available() is False "
            f"(torch {torch.__version__})"
        )
    if requested == "mps" and not torch.backends.mps.is_available():
        raise RuntimeError("--device mps asked for, but torch.backends.mps.is_available() is False")
    if requested not in ("cuda", "cpu", "mps"):
        raise ValueError(f"--device must be auto, cuda, cpu or mps, not {requested!r}")
    return torch.device(requested)


def backend_of(device: torch.device) -> str:
    """'cuda', 'rocm', 'mps' or 'cpu' for the device the probe runs on."""
    if device.type == "cuda":
        return "rocm" if torch.version.hip else "cuda"
    return device.type


def triton_version() -> str | None:
    """Triton's version, or None when Triton is not installed."""
    try:
        import triton
    except ImportError:
        return None
    return getattr(triton, "__version__", None)


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (Linux) or platform.processor()."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(errors="replace").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _nvidia_smi(fields: list[str]) -> dict[str, str] | None:
    """One query of nvidia-smi for the first GPU, or None when it is absent or fails."""
    exe = shutil.which("nvidia-smi")
    if exe is None:
        return None
    try:
        out = subprocess.run(
            [exe, f"--query-gpu={','.join(fields)}", "--format=csv,noheader,nounits", "-i", "0"],
            capture_output=True,
            text=True,
            timeout=20,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    values = [v.strip() for v in out.strip().splitlines()[0].split(",")] if out.strip() else []
    if len(values) != len(fields):
        return None
    return dict(zip(fields, values, strict=True))


_GPU_STATE_FIELDS = [
    "clocks.sm",
    "clocks.mem",
    "temperature.gpu",
    "power.draw",
    "clocks_throttle_reasons.active",
]


def gpu_state() -> dict[str, str] | None:
    """Clocks (MHz), temperature (C), power (W) and active throttle reasons, via nvidia-smi."""
    return _nvidia_smi(_GPU_STATE_FIELDS)


def sm_clock_mhz(device: torch.device) -> int | None:
    """Current SM clock (MHz) through NVML when available (CUDA only), else None."""
    if device.type != "cuda" or torch.version.hip:
        return None
    try:
        return int(torch.cuda.clock_rate(device))
    except Exception:  # NVML (pynvml) absent or not answering: the clock is optional
        return None


def gpu_reading(device: torch.device) -> dict:
    """SM clock (MHz) and board power (W, NVML's own ~1 s average on recent GPUs) right now,
    through NVML; the keys it cannot read are left out (CUDA only, else empty)."""
    if device.type != "cuda" or torch.version.hip:
        return {}
    reading: dict = {}
    try:
        reading["sm_clock_mhz"] = int(torch.cuda.clock_rate(device))
        reading["power_w"] = round(torch.cuda.power_draw(device) / 1000.0, 1)
    except Exception:  # NVML (pynvml) absent or not answering: the readings are optional
        pass
    return reading


def inductor_cache_dir() -> str:
    """Inductor's on-disk cache directory (TORCHINDUCTOR_CACHE_DIR or its default)."""
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    return cache_dir()


def cache_has_entries(path: str) -> bool:
    """Whether Inductor's cache directory already holds compiled graphs (a warm cache)."""
    fx = Path(path) / "fxgraph"
    return fx.is_dir() and any(fx.iterdir())


def describe(device: torch.device) -> dict:
    """Everything about the host and device that a result must be read against."""
    env: dict = {
        "host": socket.gethostname(),
        "backend": backend_of(device),
        "device_type": device.type,
        "torch_version": torch.__version__,
        "cuda_version": torch.version.cuda,
        "hip_version": torch.version.hip,
        "triton_version": triton_version(),
        "python_version": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "cpu_model": cpu_model(),
        "cpu_threads": torch.get_num_threads(),
        "cpu_count": os.cpu_count(),
        "device_name": None,
        "device_arch": None,
        "multiprocessors": None,
        "device_memory_bytes": None,
        "l2_cache_bytes": None,
        "driver_version": None,
    }
    if device.type == "cuda":
        props = torch.cuda.get_device_properties(device)
        arch = getattr(props, "gcnArchName", "") if torch.version.hip else ""
        env.update(
            device_name=props.name,
            device_arch=arch.split(":")[0] if arch else f"sm_{props.major}{props.minor}",
            multiprocessors=props.multi_processor_count,
            device_memory_bytes=props.total_memory,
            l2_cache_bytes=getattr(props, "L2_cache_size", None),
        )
        smi = _nvidia_smi(["driver_version"]) if not torch.version.hip else None
        env["driver_version"] = smi["driver_version"] if smi else _rocm_driver_version()
    elif device.type == "cpu":
        env["device_name"] = env["cpu_model"]
        env["device_arch"] = platform.machine()
    else:
        env["device_name"] = "Apple GPU (mps)"
        env["device_arch"] = platform.machine()
    return env


def _rocm_driver_version() -> str | None:
    """The amdgpu kernel driver version when readable (ROCm hosts), else None."""
    version = Path("/sys/module/amdgpu/version")
    return version.read_text().strip() if version.exists() else None
