"""Command line: `python -m shu.probe [--device auto|cuda|cpu|mps] [--suite quick|full]
[--json] [--out PATH] [--code-dir DIR] [--repeats N] [--threads N] [--kernel NAME ...]`.

Prints progress and a table to stderr; `--out PATH` writes the result document as JSON to PATH,
`--json` prints it to stdout, ready for `shu ingest probe PATH` on any machine that has the
store. The grammar is shu's own (`--json` a switch, `--out` a file); the older `--json PATH`
(and `--json -` for stdout) still works, so earlier probe invocations keep running.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# Each unit of a rate and those 1000 and a million times smaller, for rates below 1 of it.
_SMALLER_UNITS = {"TFLOP/s": ("GFLOP/s", "MFLOP/s"), "GB/s": ("MB/s", "kB/s")}


def rate(value: float, unit: str) -> str:
    """`value` in `unit` with one decimal, in a unit 1000 (or a million) times smaller where it
    is below 1, so that no rate reads 0.0 (a CPU's 0.0412 TFLOP/s is 41.2 GFLOP/s)."""
    for smaller in _SMALLER_UNITS.get(unit, ()):
        if abs(value) >= 1:
            break
        value, unit = value * 1000, smaller
    return f"{value:.1f} {unit}"


def format_table(doc: dict) -> str:
    """A plain-text table of a probe document's results and summary."""
    env, ceil, summ = doc["environment"], doc["ceilings"], doc["summary"]
    lines = [
        f"{env['backend']} {env['device_name']} ({env['device_arch']}), torch "
        f"{env['torch_version']}, triton {env['triton_version']}, suite {doc['suite']} "
        f"v{doc['suite_version']}, compile cache {doc['compile_cache']['state']}, "
        f"wall {doc['wall_s']:.1f} s",
        f"ceilings: copy {rate(ceil['copy_gbps'], 'GB/s')}, {ceil['matmul_dtype']} matmul "
        f"{rate(ceil['matmul_tflops'], 'TFLOP/s')}",
        f"{'kernel':<18} {'eager ms':>10} {'compiled ms':>12} {'speedup':>8} {'cv e/c %':>10} "
        f"{'compile s':>9} {'achieved':>16} {'ceil %':>7} {'do_bench ms':>11} {'vs db %':>7}"
        "  valid",
    ]
    for r in doc["results"]:
        if "compiled" not in r:
            lines.append(
                f"{r['kernel']:<18} {'-':>10} {'-':>12} {'-':>8} {'-':>10} {'-':>9} "
                f"{'-':>16} {'-':>7} {'-':>11} {'-':>7}  no: {r['invalid_reason']}"
            )
            continue
        ach = r["achieved_compiled"]
        ach_s = rate(ach, r["achieved_unit"]) if ach is not None else "-"
        frac = r["fraction_of_ceiling"]
        ref = (r.get("reference_timers") or {}).get("compiled", {})
        db, dev = ref.get("do_bench_ms"), ref.get("primed_vs_do_bench")
        lines.append(
            f"{r['kernel']:<18} {r['eager']['median_ms']:>10.4f} "
            f"{r['compiled']['median_ms']:>12.4f}"
            f" {r['speedup_unchecked']:>7.2f}x "
            f"{100 * r['eager']['cv']:>4.1f}/{100 * r['compiled']['cv']:<5.1f}"
            f" {r['compile_s']:>9.1f} {ach_s:>16} "
            f"{(f'{100 * frac:.0f}' if frac is not None else '-'):>7} "
            f"{(f'{db:.4f}' if db is not None else '-'):>11} "
            f"{(f'{100 * dev:+.1f}' if dev is not None else '-'):>7}  "
            f"{'yes' if r['is_valid'] else 'no: ' + r['invalid_reason']}"
        )
    for r in doc["results"]:
        if r.get("inductor"):
            lines.append(f"  {r['kernel']:<18} inductor: {r['inductor']['summary']}")
    gm, gmc = summ["geomean_speedup"], summ["geomean_speedup_clipped"]
    lines.append(
        f"valid {summ['n_valid']}/{summ['n_kernels']} (pass rate "
        f"{summ['pass_rate']:.0%}); geomean speedup raw "
        f"{'-' if gm is None else f'{gm:.3f}x'}, clipped at 1.0 "
        f"{'-' if gmc is None else f'{gmc:.3f}x'}"
    )
    if summ.get("substituted_kernels"):
        rest = summ["geomean_speedup_without_substitutions"]
        lines.append(
            f"replaced by a library op: {', '.join(summ['substituted_kernels'])}; geomean "
            f"without them {'-' if rest is None else f'{rest:.3f}x'}"
        )
    if summ["max_cv"] is not None:
        lines.append(f"largest CV {100 * summ['max_cv']:.1f}%")
    if summ["do_bench_max_abs_deviation"] is not None:
        lines.append(
            f"compiled vs do_bench (paired, kernels >= 50 us): largest deviation "
            f"{100 * summ['do_bench_max_abs_deviation']:.1f}%"
        )
    return "\n".join(lines)


EXAMPLES = """examples:
  python -m shu.probe --device cpu --suite full --kernel softmax --threads 1 --out cpu.json
  python -m shu.probe --device cuda --suite full --out h100.json
  shu ingest probe h100.json      (on a machine with the store)
  python -m shu.probe --suite quick --json > run.json"""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The arguments, with the older `--json PATH` folded into `--out PATH`."""
    parser = argparse.ArgumentParser(
        prog="python -m shu.probe",
        description=__doc__.split("\n\n")[1].replace("\n", " "),
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--device", default="auto", choices=["auto", "cuda", "cpu", "mps"])
    parser.add_argument("--suite", default="quick", choices=["quick", "full"])
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="PATH",
        help="print the result document as JSON to stdout (the older form --json PATH writes "
        "it to PATH, as --out does)",
    )
    parser.add_argument("--out", metavar="PATH", help="write the result document as JSON here")
    parser.add_argument(
        "--code-dir",
        metavar="DIR",
        help="also write each kernel's Inductor output code (what the `inductor` record was "
        "read from) to DIR/KERNEL.py",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="interleaved repeats per variant (default 100 on GPU, 30 on CPU)",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="pin torch's CPU threads (default: torch's own choice)",
    )
    parser.add_argument(
        "--kernel",
        action="append",
        default=None,
        help="run only this kernel of the suite (repeatable)",
    )
    args = parser.parse_args(argv)
    if args.json not in (None, "-"):  # the older `--json PATH`
        if args.out not in (None, args.json):
            parser.error(f"--json {args.json} and --out {args.out} name two different files")
        args.out, args.json = args.json, None
    args.stdout = args.json == "-"
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    from shu.probe.runner import run_probe

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        doc = run_probe(
            device=args.device,
            suite=args.suite,
            repeats=args.repeats,
            kernels=args.kernel,
            progress=progress,
            threads=args.threads,
            code_dir=args.code_dir,
        )
    except (RuntimeError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_table(doc), file=sys.stderr)
    text = json.dumps(doc, indent=1, allow_nan=False)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)
    if args.stdout:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
