"""Claim extraction: quantitative hardware/compiler claims read from passage text by rules.

`extract_claims(text)` reads one passage and returns an `ExtractedClaim` per figure it can
attribute: a sentence's number with a unit (×, TFLOP/s, GB/s, ms, images/s, a share "of"
something), or a "no speedup" statement, or one markdown-table cell that has a number. Each
keeps its quote (the sentence or the row, verbatim) as its receipt.

What a claim is about is read from the sentence, then from earlier sentences of the same passage
(the device a paragraph introduced): the device class (H100, MI300X, …), the stack (CUDA 12.4,
ROCm 6.0; the backend follows from the device when unstated), the workload (a probe kernel,
matmul, copy bandwidth, all-reduce, a model), the dtype, the comparison ("up to", "at least",
"about", "within 10%", "no speedup") and the baseline. A figure whose metric cannot be named
(a version number, a count of GPUs, a star count, "92% of models") is not a claim: rules prefer
extracting nothing to extracting something wrong. Every pattern is linear, and a sentence
without a digit next to a unit is skipped early, so a 10 MB page stays fast.

The patterns and the vocabulary they name live in `claim_vocabulary`; the rules that apply them
are here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from shu.evidence.claim_vocabulary import (
    AFTER_AT_LEAST,
    BEFORE,
    CEILING,
    DEVICE_PATTERN,
    DEVICES,
    DTYPE_PATTERN,
    DTYPES,
    EAGER,
    MODEL_NAME,
    NO_SPEEDUP,
    NUMBER,
    OF_SPAN,
    PAREN,
    PCT_SPEEDUP,
    PERF_NOUN,
    PREFIX_X,
    QUICK,
    RATIO_HEADER,
    SENTENCE,
    SPEEDUP_WORD,
    STACK_BACKEND,
    STACK_PATTERN,
    SUITE_PATTERN,
    TABLE_SEP,
    UNIT_FIRST,
    UNIT_RES,
    VALUE,
    WITHIN,
    WORKLOAD_PATTERN,
    WORKLOADS,
)

EXTRACTOR_VERSION = "2026.11.1"


@dataclass(frozen=True)
class ExtractedClaim:
    """One claim read from a passage: what, on what, how much, compared how; and its quote."""

    quote: str
    metric: str
    unit: str
    value: float
    comparison: str
    device: str | None = None
    backend: str | None = None
    stack: str | None = None
    workload: str | None = None
    dtype: str | None = None
    quantity: str | None = None
    value_high: float | None = None
    tolerance: float | None = None
    baseline: str | None = None


@dataclass(frozen=True)
class _Subject:
    device: str | None = None
    backend: str | None = None
    stack: str | None = None


def parse_number(text: str) -> float:
    """'1,580' / '1 580' (narrow space) / '2.4' -> float."""
    return float(re.sub(r"[,\u202f\u2009]", "", text))


def extract_claims(text: str) -> list[ExtractedClaim]:
    """Every claim in one passage, in reading order (table rows in place)."""
    out: list[ExtractedClaim] = []
    carried = _Subject()
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|"):
            j = i
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                j += 1
            out += _table_claims([line.strip() for line in lines[i:j]])
            i = j
            continue
        j = i
        while j < len(lines) and lines[j].strip() and not lines[j].lstrip().startswith("|"):
            j += 1
        paragraph = " ".join(line.strip() for line in lines[i:j]).strip()
        i = max(j, i + 1)
        if not paragraph:
            continue
        for sentence in SENTENCE.split(paragraph):
            carried = _carry(carried, _subject(sentence))
            if QUICK.search(sentence):
                out += _sentence_claims(sentence, carried)
    return [_rounded(c) for c in out]


def _rounded(claim: ExtractedClaim) -> ExtractedClaim:
    """Values to 12 significant digits (0.7, not 0.7000000000000001 from 70 * 0.01)."""

    def r(v: float | None) -> float | None:
        return None if v is None else float(f"{v:.12g}")

    return replace(
        claim,
        value=float(f"{claim.value:.12g}"),
        value_high=r(claim.value_high),
        tolerance=r(claim.tolerance),
    )


def _carry(carried: _Subject, subject: _Subject) -> _Subject:
    """What a sentence is about: what it names, else what the paragraph named before (a stack
    carries over only while the device and backend stay the same)."""
    device = subject.device or carried.device
    backend = subject.backend or carried.backend
    same = subject.device in (None, carried.device) and carried.backend in (None, backend)
    stack = subject.stack or (carried.stack if same else None)
    return _Subject(device, backend, stack)


# --------------------------------------------------------------------------- vocabulary
def _devices(text: str) -> list[tuple[int, str, str]]:
    found = []
    for m in DEVICE_PATTERN.finditer(text):
        idx = next(int(k[1:]) for k, v in m.groupdict().items() if v is not None)
        name, _, backend = DEVICES[idx]
        found.append((m.start(), name, backend))
    return found


def _stacks(text: str) -> list[tuple[int, str, str]]:
    out = []
    for m in STACK_PATTERN.finditer(text):
        name = m.group("name")
        backend = STACK_BACKEND[name.lower()]
        out.append((m.start(), f"{name} {m.group('ver')}" if m.group("ver") else name, backend))
    return out


def _subject(text: str) -> _Subject:
    devices, stacks = _devices(text), _stacks(text)
    device = devices[0] if devices else None
    stack = stacks[0] if stacks else None
    if device and stack and stack[2] != device[2]:
        stack = next((s for s in stacks if s[2] == device[2]), None)
    backend = device[2] if device else (stack[2] if stack else None)
    return _Subject(device[1] if device else None, backend, stack[1] if stack else None)


def _workload(text: str) -> str | None:
    """The leftmost workload named (a kernel before a model; earlier vocabulary wins at one
    position, so 'GEMM with a bias' is gemm_bias_relu, not matmul)."""
    m = WORKLOAD_PATTERN.search(text)
    if m and m.lastgroup:  # every alternative is a group named w<index>
        return WORKLOADS[int(m.lastgroup[1:])][0]
    m = MODEL_NAME.search(text)
    if m:
        return "model:" + re.sub(r"\s+", " ", m.group("m"))
    if SUITE_PATTERN.search(text):
        return "suite"
    return None


def _dtype(text: str) -> str | None:
    m = DTYPE_PATTERN.search(text)
    return DTYPES[m.group(1).lower().replace("_", " ")] if m else None


def _comparison(before: str, after: str) -> str:
    tail = " " + " ".join(before[-40:].lower().split())
    for article in (" a", " an", " the"):
        if tail.endswith(article):
            tail = tail[: -len(article)]
    for name, phrases in BEFORE:
        if tail.endswith(phrases):
            return name
    return "at least" if AFTER_AT_LEAST.search(after) else "about"


def _unit_of(raw: str) -> tuple[str, str, float]:
    raw = raw.strip()
    for pattern, metric, unit, scale in UNIT_RES:
        if pattern.match(raw) or pattern.match(raw.replace(" ", "")):
            return metric, unit, scale
    raise ValueError(raw)


# --------------------------------------------------------------------------- sentences
def _sentence_claims(sentence: str, carried: _Subject) -> list[ExtractedClaim]:
    claims: list[ExtractedClaim] = []
    quote = sentence.strip()
    used: list[tuple[int, int]] = []
    known: dict[str, str | None] = {}

    def about(name: str) -> str | None:  # workload / dtype, read once and only when needed
        if name not in known:
            known[name] = (_workload if name == "workload" else _dtype)(sentence)
        return known[name]

    def base(**kw: Any) -> ExtractedClaim:
        return ExtractedClaim(
            quote=quote,
            device=carried.device,
            backend=carried.backend,
            stack=carried.stack,
            workload=about("workload"),
            dtype=about("dtype"),
            **kw,
        )

    for m in VALUE.finditer(sentence):
        try:
            metric, unit, scale = _unit_of(m.group("unit"))
        except ValueError:
            continue
        lo = parse_number(m.group("lo")) * scale
        hi = parse_number(m.group("hi")) * scale if m.group("hi") else None
        before, after = sentence[: m.start()], sentence[m.end() :]
        if metric == "percent" and not (OF_SPAN.match(after) or PCT_SPEEDUP.match(after)):
            continue
        comparison = "between" if hi is not None else _comparison(before, after)
        if m.group("plus"):
            comparison = "at least"
        used.append(m.span())
        if metric == "speedup":
            if not SPEEDUP_WORD.search(sentence):
                continue
            claims.append(
                base(
                    metric="speedup",
                    unit="x",
                    value=lo,
                    value_high=hi,
                    comparison=comparison,
                    baseline=_speedup_baseline(sentence),
                )
            )
        elif metric == "percent":
            claim = _percent_claim(
                base, sentence, m, lo, hi, comparison, before, after, carried.device
            )
            if claim is not None:
                claims.append(claim)
        elif about("workload") is not None or metric in ("TFLOP/s", "GB/s"):
            wl = about("workload") or (
                "matmul"
                if metric == "TFLOP/s" and CEILING.search(sentence)
                else "copy"
                if metric == "GB/s" and CEILING.search(sentence)
                else None
            )
            if metric == "latency" and wl is None:
                continue
            claims.append(
                replace(
                    base(metric=metric, unit=unit, value=lo, value_high=hi, comparison=comparison),
                    workload=wl,
                )
            )
    extra = [(m, "x") for m in PREFIX_X.finditer(sentence)]
    extra += [(m, m.group("unit").lower()) for m in UNIT_FIRST.finditer(sentence)]
    for m, unit_raw in extra:
        if any(s <= m.start() < e or s < m.end() <= e for s, e in used):
            continue
        metric, unit = (
            ("TFLOP/s", "TFLOP/s")
            if unit_raw.startswith("tflop")
            else ("GB/s", "GB/s")
            if unit_raw == "gb/s"
            else ("speedup", "x")
        )
        if metric == "speedup" and not SPEEDUP_WORD.search(sentence):
            continue
        used.append(m.span())
        claims.append(
            base(
                metric=metric,
                unit=unit,
                value=parse_number(m.group("lo")),
                comparison=_comparison(sentence[: m.start()], ""),
                baseline=_speedup_baseline(sentence) if metric == "speedup" else None,
            )
        )
    if not claims and NO_SPEEDUP.search(sentence) and about("workload") is not None:
        claims.append(
            base(
                metric="speedup",
                unit="x",
                value=1.0,
                comparison="no speedup",
                baseline=_speedup_baseline(sentence),
            )
        )
    # a figure about nothing named (no device, stack or workload) is not a claim
    return [c for c in claims if c.device or c.backend or c.workload]


def _speedup_baseline(sentence: str) -> str | None:
    return "eager" if EAGER.search(sentence) else None


def _percent_claim(
    base: Callable[..., ExtractedClaim],
    sentence: str,
    m: re.Match,
    lo: float,
    hi: float | None,
    comparison: str,
    before: str,
    after: str,
    device: str | None,
) -> ExtractedClaim | None:
    direction = PCT_SPEEDUP.match(after)
    if direction and SPEEDUP_WORD.search(sentence):
        sign = -1.0 if direction.group("dir").lower() == "slower" else 1.0
        return base(
            metric="speedup",
            unit="x",
            value=1.0 + sign * lo,
            value_high=None if hi is None else 1.0 + sign * hi,
            comparison=comparison,
            baseline=_speedup_baseline(sentence),
        )
    of = OF_SPAN.match(after)
    if WITHIN.search(before[-20:]):
        if of is None:
            return None
        span = of.group("span")
        target = _workload(span)
        devices, stacks = _devices(span), _stacks(span)
        baseline = (
            target if target else devices[0][1] if devices else stacks[0][1] if stacks else None
        )
        if baseline is None:
            return None
        return base(
            metric="relative",
            unit="fraction",
            value=1.0,
            comparison="within",
            tolerance=hi if hi is not None else lo,
            baseline=baseline,
            quantity=_quantity(span) or "time",
        )
    if of is None:
        return None
    span = of.group("span")
    if not PERF_NOUN.search(span):
        return None
    devices, stacks = _devices(span), _stacks(span)
    if CEILING.search(span) and not stacks and all(d[1] == device for d in devices):
        return base(
            metric="fraction_of_ceiling",
            unit="fraction",
            value=lo,
            value_high=hi,
            comparison=comparison,
            baseline="matmul"
            if re.search(r"matmul|flop", span, re.I)
            else "copy"
            if re.search(r"bandwidth|copy", span, re.I)
            else "peak",
        )
    baseline = devices[0][1] if devices else stacks[0][1] if stacks else None
    if baseline is None:
        return None
    claim = base(
        metric="relative",
        unit="fraction",
        value=lo,
        value_high=hi,
        comparison=comparison,
        baseline=baseline,
        quantity=_quantity(span),
    )
    subject = _subject(sentence[: m.start()])
    if subject.device or subject.stack:  # the subject is what precedes the share
        keep = (
            claim.device
            if subject.device is None and claim.backend == subject.backend
            else subject.device
        )
        claim = replace(claim, device=keep, backend=subject.backend, stack=subject.stack)
    if _workload(span) is not None:
        claim = replace(claim, workload=_workload(span))
    return claim


def _quantity(span: str) -> str | None:
    m = PERF_NOUN.search(span)
    if m is None:
        return None
    word = m.group(1).lower()
    return {"tflops": "TFLOP/s", "tflop/s": "TFLOP/s", "flops": "TFLOP/s"}.get(word, word)


# --------------------------------------------------------------------------- tables
def _cells(row: str) -> list[str]:
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|"):
        row = row[:-1]
    return [c.strip() for c in row.split("|")]


def _table_claims(rows: list[str]) -> list[ExtractedClaim]:
    body = [r for r in rows if not TABLE_SEP.match(r)]
    if len(body) < 2:
        return []
    header = _cells(body[0])
    columns = [_subject(h) for h in header]
    ratio_cols = {i for i, h in enumerate(header) if RATIO_HEADER.match(h.strip())}
    value_cols = [
        i
        for i in range(1, len(header))
        if i not in ratio_cols and (columns[i].device or columns[i].stack)
    ]
    if not value_cols:
        return _transposed_claims(header, body[1:])
    out = []
    for row in body[1:]:
        cells = _cells(row)
        if len(cells) != len(header):
            continue
        label = cells[0]
        label_unit = next((u for u in PAREN.findall(label) if _unit_or_none(u)), None)
        workload = _workload(label)
        dtype = _dtype(label)
        if label_unit is None and re.search(r"latency", label, re.IGNORECASE):
            label_unit = "ms"
        if (
            label_unit is not None
            and workload is None
            and not re.search(r"latency|bandwidth|throughput|speed", label, re.IGNORECASE)
        ):
            continue
        for i in value_cols:
            claim = _cell_claim(cells[i], label_unit, row.strip(), columns[i], workload, dtype)
            if claim is not None:
                out.append(claim)
        if len(value_cols) >= 2:
            for i in ratio_cols:
                m = re.fullmatch(rf"\s*(?P<lo>{NUMBER})\s*%\s*", cells[i])
                metric = _unit_or_none(label_unit or _cell_unit(cells[value_cols[0]]) or "")
                if m is None or metric is None:
                    continue
                subject, other = columns[value_cols[0]], columns[value_cols[1]]
                out.append(
                    ExtractedClaim(
                        quote=row.strip(),
                        metric="relative",
                        unit="fraction",
                        value=parse_number(m.group("lo")) / 100,
                        comparison="about",
                        device=subject.device,
                        backend=subject.backend,
                        stack=subject.stack,
                        workload=workload,
                        dtype=dtype,
                        quantity=metric[0],
                        baseline=other.device or other.stack,
                    )
                )
    return out


def _transposed_claims(header: list[str], rows: list[str]) -> list[ExtractedClaim]:
    """A table with one device per row ('| H100 | 2.5 |') and the measure in the header."""
    out = []
    for row in rows:
        cells = _cells(row)
        subject = _subject(cells[0])
        if len(cells) != len(header) or not (subject.device or subject.stack):
            continue
        for i in range(1, len(header)):
            label_unit = next((u for u in PAREN.findall(header[i]) if _unit_or_none(u)), None)
            workload = _workload(header[i])
            if workload is None:
                continue
            claim = _cell_claim(
                cells[i],
                label_unit,
                row.strip(),
                subject,
                workload,
                _dtype(header[i]) or _dtype(cells[0]),
            )
            if claim is not None:
                out.append(claim)
    return out


def _unit_or_none(text: str) -> tuple[str, str, float] | None:
    text = text.strip()
    if not text:
        return None
    try:
        metric, unit, scale = _unit_of(text)
    except ValueError:
        return None
    return None if metric == "percent" else (metric, unit, scale)


def _cell_unit(cell: str) -> str | None:
    m = re.fullmatch(rf"\s*[~≈]?\s*{NUMBER}\s*\+?\s*(?P<u>[^\d\s].*?)\s*", cell)
    return m.group("u") if m else None


def _cell_claim(
    cell: str,
    label_unit: str | None,
    quote: str,
    subject: _Subject,
    workload: str | None,
    dtype: str | None,
) -> ExtractedClaim | None:
    m = re.fullmatch(
        rf"\s*(?P<about>[~≈]|about\s+)?\s*(?P<lo>{NUMBER})\s*(?:(?:-|–)\s*"
        rf"(?P<hi>{NUMBER}))?\s*(?P<plus>\+)?\s*(?P<u>[^\d\s|][^|]*?)?\s*",
        cell,
    )
    if m is None:
        return None
    unit_text = m.group("u") or label_unit
    found = _unit_or_none(unit_text or "")
    if found is None:
        return None
    metric, unit, scale = found
    if metric == "latency" and workload is None:
        return None
    lo = parse_number(m.group("lo")) * scale
    hi = parse_number(m.group("hi")) * scale if m.group("hi") else None
    comparison = "at least" if m.group("plus") else "between" if hi is not None else "about"
    return ExtractedClaim(
        quote=quote,
        metric=metric,
        unit=unit,
        value=lo,
        value_high=hi,
        comparison=comparison,
        device=subject.device,
        backend=subject.backend,
        stack=subject.stack,
        workload=workload,
        dtype=dtype,
    )
