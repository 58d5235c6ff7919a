"""Timers: interleaved eager/compiled repeats, device-side with an L2 flush and no launch gaps.

The primary GPU timer (`"cuda_events_flush_primed"`): before every timed call the L2 cache is
flushed by zeroing a buffer twice its size (at least 256 MB, as `do_bench` does), repeated only
as often as needed to keep the GPU busier than the host is enqueueing (from the call's measured
enqueue cost); CUDA events then bracket only the call's own kernels, launched back to back.
Samples are enqueued without host syncs and read at the end, so the host stays ahead: the sample
is device time with a cold L2 and without launch gaps, even for a function whose Python wrapper
takes longer to launch than its kernels take to run. Eager and compiled alternate in blocks
(order flipped every round) so drift hits both, and each block starts after 100 ms of untimed
calls of the same variant so clocks are at their sustained level (see `CudaTimer.interleaved`;
single-sample interleaving, and an idle `torch.cuda._sleep` primer, both read tensor-core
kernels up to 9-10% faster than `do_bench` on an H200 running at its power cap).

Before the samples, a bounded pre-conditioning phase (`Precondition`, `CudaTimer.precondition`)
runs the same alternating pattern, timed in ~100 ms chunks, until the chunk medians of every
variant have stayed within a tolerance over a window of about a second (the GPU's power
controller has reached its sustained state for this load) or a time limit is hit. Without it
the samples of tensor-core kernels spanned the H200's fall from boost clocks to its power-capped
state, and their CV was 1-6% while each 10-sample block alone varied by 0.1-0.3%.

For comparison (kept in the result, to show what launch overhead does):
- `per_iteration_events`: a sync, an event, the call, an event, a sync: what a naive timer
  reads, launch gaps included;
- `host_sync`: `perf_counter` around the call plus `synchronize()`: end-to-end latency;
- `do_bench`: `triton.testing.do_bench(..., return_mode="median")` when Triton is present;
- `do_bench_cudagraph`: the same call replayed from a CUDA graph (no launch overhead at all;
  it times back-to-back replays without an L2 flush).

On CPU and MPS (`"host_perf_counter"`) a sample is `perf_counter` around a batch of calls sized
so the sample lasts at least `min_sample_s`; the batch size is reported.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import torch

FLUSH_MIN_BYTES = 256 * 1024 * 1024


@dataclass(frozen=True)
class Precondition:
    """How long to load the GPU before sampling, and when its state counts as settled.

    Settled: at least `min_ms` of sustained load, and over the last `window_ms` the chunk
    medians of every variant lie within `tolerance` (max/min - 1). Never longer than `max_ms`
    (plus the chunk round in flight). The window is longer than the ~1 s over which the power
    controller averages, so a kernel still at boost clocks before the cap bites is not mistaken
    for a settled one.
    """

    min_ms: float = 1000.0
    max_ms: float = 3500.0
    window_ms: float = 1000.0
    tolerance: float = 0.02

    def as_dict(self) -> dict:
        return {
            "min_ms": self.min_ms,
            "max_ms": self.max_ms,
            "window_ms": self.window_ms,
            "tolerance": self.tolerance,
        }


def window_spread(chunk_medians: list[float], rounds: int) -> float | None:
    """max/min - 1 of the last `rounds` chunk medians; None while fewer than that exist."""
    if len(chunk_medians) < rounds:
        return None
    last = chunk_medians[-rounds:]
    return max(last) / min(last) - 1


def is_settled(
    chunk_medians: dict[str, list[float]], rounds: int, elapsed_ms: float, rule: Precondition
) -> bool:
    """Whether every variant's last `rounds` chunk medians agree within the rule's tolerance,
    after at least `rule.min_ms` of load."""
    if elapsed_ms < rule.min_ms:
        return False
    spreads = [window_spread(m, rounds) for m in chunk_medians.values()]
    return all(s is not None and s <= rule.tolerance for s in spreads)


@dataclass
class Stats:
    """Summary of one variant's samples (milliseconds)."""

    median_ms: float
    p20_ms: float
    p80_ms: float
    mean_ms: float
    cv: float
    repeats: int
    samples_ms: list[float]

    def as_dict(self, keep_samples: bool = True) -> dict:
        d: dict[str, float | list[float]] = {
            "median_ms": self.median_ms,
            "p20_ms": self.p20_ms,
            "p80_ms": self.p80_ms,
            "mean_ms": self.mean_ms,
            "cv": self.cv,
            "repeats": self.repeats,
        }
        if keep_samples:
            d["samples_ms"] = [round(s, 6) for s in self.samples_ms]
        return d


def quantile(values: list[float], q: float) -> float:
    """Linear-interpolated quantile (the same rule as numpy's default and torch.quantile)."""
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def summarize(samples_ms: list[float]) -> Stats:
    """Median, p20/p80, mean and coefficient of variation of timing samples."""
    mean = statistics.fmean(samples_ms)
    cv = statistics.pstdev(samples_ms) / mean if mean > 0 and len(samples_ms) > 1 else 0.0
    return Stats(
        median_ms=statistics.median(samples_ms),
        p20_ms=quantile(samples_ms, 0.2),
        p80_ms=quantile(samples_ms, 0.8),
        mean_ms=mean,
        cv=cv,
        repeats=len(samples_ms),
        samples_ms=list(samples_ms),
    )


def sync(device: torch.device) -> None:
    """Wait for the device (no-op on CPU)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    elif device.type == "mps":
        torch.mps.synchronize()


def warm_up(
    fn: Callable[[], object], device: torch.device, min_iters: int = 5, min_seconds: float = 0.025
) -> None:
    """Run `fn` at least `min_iters` times and at least `min_seconds` (reference rule 2)."""
    t0 = time.perf_counter()
    done = 0
    while done < min_iters or time.perf_counter() - t0 < min_seconds:
        fn()
        done += 1
        if done % 5 == 0:
            sync(device)
    sync(device)


class CudaTimer:
    """Device-side timer for CUDA/ROCm: L2 flush, launch-gap primer, events, interleaving."""

    def __init__(self, device: torch.device, read_gpu: Callable[[], dict] | None = None) -> None:
        self.device = device
        self.read_gpu = read_gpu or (lambda: {})
        l2 = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0) or 0
        self.flush_bytes = max(FLUSH_MIN_BYTES, 2 * l2)
        self.flush_buffer = torch.empty(self.flush_bytes // 4, dtype=torch.int32, device=device)
        self.flush_us = self._time_flush()

    def _time_flush(self) -> float:
        """Device time (us) of one L2 flush (zeroing the flush buffer)."""
        self.flush_buffer.zero_()
        pairs = []
        for _ in range(5):
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            start.record()
            self.flush_buffer.zero_()
            end.record()
            pairs.append((start, end))
        torch.cuda.synchronize(self.device)
        return statistics.median(s.elapsed_time(e) for s, e in pairs) * 1000.0

    def enqueue_us(self, fn: Callable[[], object], iters: int = 10) -> float:
        """Median host time (us) to enqueue one call on an idle queue: the launch cost."""
        times = []
        for _ in range(iters):
            torch.cuda.synchronize(self.device)
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e6)
        torch.cuda.synchronize(self.device)
        return statistics.median(times)

    def _samples(
        self, fn: Callable[[], object], count: int, flushes: int, timed: bool = True
    ) -> list[tuple[torch.cuda.Event, torch.cuda.Event]]:
        """Enqueue `count` samples (flushes, event, call, event) without syncing."""
        pairs = []
        for _ in range(count):
            for _ in range(flushes):
                self.flush_buffer.zero_()
            if timed:
                start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
                start.record()
                fn()
                end.record()
                pairs.append((start, end))
            else:
                fn()
        return pairs

    def precondition(
        self,
        fns: Mapping[str, Callable[[], object]],
        flushes: int,
        device_us: dict[str, float],
        chunk_ms: float,
        rule: Precondition,
    ) -> dict:
        """Load the GPU with the measurement's own pattern until its timings settle.

        Rounds of `chunk_ms` per variant (order flipped each round, samples as in the
        measurement, events around each call) are enqueued one round ahead of the host's
        check, so the GPU never idles; after each round the host reads the previous round's
        chunk medians and the GPU's clock and power (NVML, when `read_gpu` gives them) and stops
        once `is_settled` or past `rule.max_ms`. Returns what was done, with the trace.
        """
        names = list(fns)
        calls = {
            n: max(1, math.ceil(chunk_ms * 1000 / (device_us[n] + flushes * self.flush_us)))
            for n in names
        }
        window_rounds = max(2, math.ceil(rule.window_ms / (chunk_ms * len(names))))
        medians: dict[str, list[float]] = {n: [] for n in names}
        trace: list[dict] = []
        gpu_start = self.read_gpu()
        pending: dict[str, list] | None = None
        first = None
        elapsed = 0.0
        settled = False
        r = 0
        while True:
            current = {
                n: self._samples(fns[n], calls[n], flushes)
                for n in (names if r % 2 == 0 else list(reversed(names)))
            }
            last_end = list(current.values())[-1][-1][1]
            if first is None:
                first = next(iter(current.values()))[0][0]
            r += 1
            if pending is not None:
                pending_end = list(pending.values())[-1][-1][1]
                pending_end.synchronize()
                for n in names:
                    medians[n].append(statistics.median(s.elapsed_time(e) for s, e in pending[n]))
                elapsed = first.elapsed_time(pending_end)
                trace.append(
                    {
                        "elapsed_ms": round(elapsed, 1),
                        "chunk_median_ms": {n: round(medians[n][-1], 5) for n in names},
                        **self.read_gpu(),
                    }
                )
                settled = is_settled(medians, window_rounds, elapsed, rule)
                if settled or elapsed >= rule.max_ms:
                    break
            pending = current
        last_end.synchronize()
        return {
            "precondition_ms": first.elapsed_time(last_end),
            "settled": settled,
            "rounds": r,
            "window_rounds": window_rounds,
            "chunk_ms": chunk_ms,
            "calls_per_chunk": calls,
            "rule": rule.as_dict(),
            "window_spread": {n: window_spread(medians[n], window_rounds) for n in names},
            "gpu_start": gpu_start,
            "gpu_end": self.read_gpu(),
            "trace": trace,
        }

    def interleaved(
        self,
        fns: Mapping[str, Callable[[], object]],
        repeats: int,
        enqueue_us: dict[str, float],
        block: int = 10,
        settle_ms: float = 100.0,
        precondition: Precondition | None = None,
    ) -> tuple[dict[str, Stats], dict]:
        """Device time of each function: `repeats` samples each, interleaved in blocks.

        Each sample is flush(es), event, call, event. The number of flushes per sample is the
        fewest (at least one, as in do_bench) that keep the GPU busier than the host is
        enqueueing (1.5x the measured enqueue cost), so the host stays ahead and launch gaps
        never reach the timed region. Variants alternate in blocks of `block` samples (order
        flipped each round); each block is preceded by `settle_ms` of the same variant, untimed,
        so the GPU's clocks and power state are those of sustained load on that variant, not
        left over from the other one. On an H200 at its power cap, interleaving single samples
        read tensor-core kernels up to 9% faster than do_bench, and 25 ms of settling still
        1-4% faster than do_bench and CUDA-graph replay: the power controller needs longer.
        With `precondition`, the samples start only once `precondition()` (chunks of
        `settle_ms`) has brought the GPU to a settled state under this very pattern.

        Returns the stats per variant and how the samples were taken.
        """
        names = list(fns)
        lead = max(enqueue_us.values()) * 1.5
        probe = {
            n: self._samples(fns[n], 5, max(1, math.ceil(lead / self.flush_us))) for n in names
        }
        torch.cuda.synchronize(self.device)
        device_us = {
            n: 1000 * statistics.median(s.elapsed_time(e) for s, e in probe[n]) for n in names
        }
        flushes = max(1, math.ceil((lead - min(device_us.values())) / self.flush_us))
        conditioned = (
            self.precondition(fns, flushes, device_us, settle_ms, precondition)
            if precondition is not None
            else None
        )
        t_measure = time.perf_counter()
        events: dict[str, list[tuple[torch.cuda.Event, torch.cuda.Event]]] = {n: [] for n in names}
        for r in range(math.ceil(repeats / block)):
            for name in names if r % 2 == 0 else reversed(names):
                per_sample_us = device_us[name] + flushes * self.flush_us
                self._samples(
                    fns[name], math.ceil(settle_ms * 1000 / per_sample_us), flushes, timed=False
                )
                events[name] += self._samples(fns[name], min(block, repeats - r * block), flushes)
        torch.cuda.synchronize(self.device)
        stats = {n: summarize([s.elapsed_time(e) for s, e in events[n]]) for n in names}
        method = {
            "flushes_per_sample": flushes,
            "flush_us": self.flush_us,
            "l2_flush_bytes": self.flush_bytes,
            "block": block,
            "settle_ms": settle_ms,
            "enqueue_us": enqueue_us,
            "estimated_device_us": device_us,
            "measure_wall_ms": (time.perf_counter() - t_measure) * 1e3,
            "precondition": conditioned,
            "gpu_after_samples": self.read_gpu(),
        }
        return stats, method

    def per_iteration(self, fn: Callable[[], object], repeats: int) -> tuple[Stats, Stats]:
        """Naive timers, launch gaps included: (per-iteration events, host perf_counter+sync)."""
        event_ms, host_ms = [], []
        for _ in range(repeats):
            start, end = (torch.cuda.Event(enable_timing=True) for _ in range(2))
            torch.cuda.synchronize(self.device)
            t0 = time.perf_counter()
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize(self.device)
            host_ms.append((time.perf_counter() - t0) * 1e3)
            event_ms.append(start.elapsed_time(end))
        return summarize(event_ms), summarize(host_ms)


def do_bench_median_ms(fn: Callable[[], object]) -> float | None:
    """`triton.testing.do_bench` median (ms), or None when Triton is not installed."""
    try:
        from triton.testing import do_bench
    except ImportError:
        return None
    return float(do_bench(fn, warmup=25, rep=100, return_mode="median"))


def do_bench_cudagraph_median_ms(fn: Callable[[], object]) -> tuple[float | None, str | None]:
    """`triton.testing.do_bench_cudagraph` median (ms): the call replayed from a CUDA graph, so
    no launch overhead at all. (None, why) when Triton is absent or the call cannot be captured.
    `rep=20` (Triton's default): it replays its graph 10 times, so rep=100 cost a second per
    call of this function.
    """
    try:
        from triton.testing import do_bench_cudagraph
    except ImportError:
        return None, "triton not installed"
    try:
        return float(do_bench_cudagraph(fn, rep=20, return_mode="median")), None
    except Exception as exc:  # capture can fail (syncs, CPU work); the figure is optional
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"


def host_batch_size(fn: Callable[[], object], min_sample_s: float, device: torch.device) -> int:
    """Calls per sample so that one sample lasts at least `min_sample_s` (host timer)."""
    t0 = time.perf_counter()
    fn()
    sync(device)
    once = max(time.perf_counter() - t0, 1e-7)
    return max(1, math.ceil(min_sample_s / once))


def host_interleaved(
    fns: Mapping[str, Callable[[], object]], repeats: int, batch: int, device: torch.device
) -> dict[str, Stats]:
    """Host time per call of each function, `repeats` interleaved samples of `batch` calls.

    Used on CPU (and MPS, with a sync closing each sample).
    """
    names = list(fns)
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(repeats):
        for name in names if r % 2 == 0 else reversed(names):
            fn = fns[name]
            t0 = time.perf_counter()
            for _ in range(batch):
                fn()
            sync(device)
            samples[name].append((time.perf_counter() - t0) * 1e3 / batch)
    return {n: summarize(samples[n]) for n in names}
