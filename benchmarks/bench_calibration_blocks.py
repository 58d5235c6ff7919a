"""Evaluation (issue 18): the last 11 months of origins our data resolves, block by block, before
and after the regime guard and the online conformal levels.

Runs `shu backtest --from 2025-03-01 --to 2026-01-31 --horizon 30 --template
star_velocity_up,star_accel_reach,star_velocity_interval --json` twice on the ranking store
(built as `bench_forecast_backtest.py` builds it): with `--plain` (the fitted models alone:
before) and without (after). Each origin is trained and calibrated only on what was known
before it. Prints per slice the pooled figures and the worst 8-week block before and after,
against issue 18's targets for the months after the data (yes/no: BSS >= 0.20 for
star_velocity_up, ECE <= 0.02, every decile within 0.05 of observed; intervals: 80% coverage
0.77-0.83 overall and per velocity band, CRPS skill >= 0.25), and records both under the key
`issue_18` of OUT/backtest.json (the rest of that file is left as it is).

Usage:
  .venv/bin/python benchmarks/bench_calibration_blocks.py [--store /tmp/shu-bench/forecast.duckdb]
      [--out docs/forecast] [--from 2025-03-01] [--to 2026-01-31]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = "star_velocity_up,star_accel_reach,star_velocity_interval"


def run(store: Path, start: str, end: str, plain: bool) -> tuple[list[str], dict, float]:
    command = [
        str(ROOT / ".venv" / "bin" / "shu"),
        "backtest",
        "--from",
        start,
        "--to",
        end,
        "--horizon",
        "30",
        "--template",
        TEMPLATES,
        "--json",
        "--db",
        str(store),
    ]
    command += ["--plain"] if plain else []
    print("$ " + " ".join(command), flush=True)
    t0 = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=True)
    return command, json.loads(done.stdout), time.perf_counter() - t0


def summary(metrics: dict) -> dict:
    """Per slice: the pooled figures and the worst block (what the comparison records)."""
    out = {}
    for key, m in metrics["slices"].items():
        worst = m["blocks"]["worst"]
        if "coverage" in m:
            out[key] = {
                "n": m["n"],
                "coverage": m["coverage"],
                "coverage_80_by_velocity": {
                    b: v["coverage"]["0.8"] for b, v in m["coverage_by_velocity"].items()
                },
                "crps_skill_persistence": m["crps_skill_persistence"],
                "worst_block": worst,
                "online": m.get("online"),
            }
        else:
            out[key] = {
                "n": m["n"],
                "bss_climatology": m["bss_climatology"],
                "ece": m["ece"],
                "deciles": _deciles(m),
                "worst_block": worst,
                "guard": m.get("guard"),
            }
    return out


def _deciles(m: dict) -> list[list[float]]:
    return [
        [round(b["mean_probability"], 4), round(b["observed_frequency"], 4)]
        for b in m["reliability"]
    ]


def show(key: str, before: dict, after: dict) -> None:
    b, a = before[key], after[key]
    print(f"{key}:")
    if "coverage" in b:
        rows = [("80% coverage, all", b["coverage"]["0.8"], a["coverage"]["0.8"], "0.77-0.83")]
        rows += [
            (
                f"80% coverage {band}",
                b["coverage_80_by_velocity"][band],
                a["coverage_80_by_velocity"][band],
                "0.77-0.83",
            )
            for band in b["coverage_80_by_velocity"]
        ]
        rows += [
            (
                "CRPS skill vs persistence",
                b["crps_skill_persistence"],
                a["crps_skill_persistence"],
                ">= 0.25",
            )
        ]
        for band, cov in b["worst_block"]["coverage_by_velocity"].items():
            rows.append(
                (
                    f"worst block 80% {band}",
                    cov["coverage_80"],
                    a["worst_block"]["coverage_by_velocity"]
                    .get(band, {})
                    .get("coverage_80", float("nan")),
                    "0.77-0.83",
                )
            )
    else:
        rows = [
            ("BSS vs climatology", b["bss_climatology"], a["bss_climatology"], ">= 0.20"),
            ("ECE", b["ece"], a["ece"], "<= 0.02"),
            (
                "largest decile gap",
                max(abs(p - o) for p, o in b["deciles"]),
                max(abs(p - o) for p, o in a["deciles"]),
                "<= 0.05",
            ),
            ("worst block ECE", b["worst_block"]["ece"], a["worst_block"]["ece"], "<= 0.02"),
            (
                "worst block top decile gap",
                b["worst_block"]["top_decile"]["gap"],
                a["worst_block"]["top_decile"]["gap"],
                "|.| <= 0.05",
            ),
            (
                "worst block bottom decile gap",
                b["worst_block"]["bottom_decile"]["gap"],
                a["worst_block"]["bottom_decile"]["gap"],
                "|.| <= 0.05",
            ),
            (
                "worst block largest decile gap",
                b["worst_block"]["max_decile_gap"],
                a["worst_block"]["max_decile_gap"],
                "<= 0.05",
            ),
        ]
    print(
        f"  worst block before {' .. '.join(b['worst_block']['origins'])}, after "
        f"{' .. '.join(a['worst_block']['origins'])}"
    )
    for label, x, y, target in rows:
        print(f"  {label:<32} before {x:>8.4f}   after {y:>8.4f}   target {target}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path("/tmp/shu-bench/forecast.duckdb"))
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "forecast")
    parser.add_argument("--from", dest="start", default="2025-03-01")
    parser.add_argument("--to", dest="end", default="2026-01-31")
    args = parser.parse_args()
    if not args.store.exists():
        print(
            f"skipped: no store at {args.store} (build it with "
            "benchmarks/bench_forecast_backtest.py)"
        )
        return 0
    cmd_before, before, t_before = run(args.store, args.start, args.end, plain=True)
    cmd_after, after, t_after = run(args.store, args.start, args.end, plain=False)
    before_s, after_s = summary(before), summary(after)
    for key in before_s:
        show(key, before_s, after_s)
    print(f"wall time: before {t_before:.0f} s, after {t_after:.0f} s")
    path = args.out / "backtest.json"
    recorded = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    recorded["issue_18"] = {
        "what": "origins 2025-03..2026-01 (the last 11 months our data resolves), each "
        "trained and calibrated only on what was known before it; before = the fitted "
        "models alone (--plain), after = with the regime guard and the online "
        "conformal levels",
        "commands": {
            "before": " ".join(["shu", *cmd_before[1:]]),
            "after": " ".join(["shu", *cmd_after[1:]]),
        },
        "before": before_s,
        "after": after_s,
    }
    path.write_text(json.dumps(recorded, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"recorded under 'issue_18' in {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
