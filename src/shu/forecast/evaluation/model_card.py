"""The model card: what the forecaster was trained on and how it scored, as Markdown and JSON.

`forecaster.json` next to the artifact is what other stages read; the briefing quotes the
backtest hit rate of a forecast's template x horizon x confidence band, within the velocity band of
its repository where the card holds one, with `band_track_record` ("forecasts at this level
resolved true 74% of the time, n = 1,240").
"""

from __future__ import annotations

import json
from pathlib import Path

from shu.forecast.confidence import HIGH_FROM, MEDIUM_FROM
from shu.forecast.evaluation.scoring import wilson_interval
from shu.forecast.evaluation.skill_gate import judge
from shu.forecast.models.artifact import CARD_JSON
from shu.forecast.models.train import TrainResult
from shu.store import utcnow

CARD_MD = "forecaster.md"
_SLICE_KEYS = (
    "n",
    "n_repos",
    "n_origins",
    "n_void",
    "base_rate",
    "brier",
    "brier_climatology",
    "brier_persistence",
    "bss_climatology",
    "bss_persistence",
    "log_loss",
    "ece",
    "murphy",
    "bands",
    "by_velocity",
    "ci95",
    "coverage",
    "coverage_persistence",
    "crps",
    "crps_persistence",
    "crps_skill_persistence",
    "mean_width_80",
    "ranking",
    "status",
)


def _card_slice(metrics: dict) -> dict:
    """What the card keeps of a backtest slice: its scores, and of its 8-week blocks the newest
    (the card's calibration watch) and the worst (a slice already kept, as `--merge` passes the
    saved card's backtest again, keeps them as they are)."""
    kept = {x: metrics[x] for x in (*_SLICE_KEYS, "newest_block", "worst_block") if x in metrics}
    blocks = metrics.get("blocks") or {}
    if blocks.get("blocks"):
        kept["newest_block"] = blocks["blocks"][-1]
        kept["worst_block"] = blocks["worst"]
    return kept


def write_model_card(
    models_dir: Path, result: TrainResult, artifact: Path, backtest: dict | None = None
) -> tuple[Path, Path]:
    """Write forecaster.json and forecaster.md into `models_dir`; return both paths."""
    card = {
        "version": result.version,
        "trained_through": str(result.trained_through),
        "written_at": utcnow().isoformat(timespec="seconds"),
        "artifact": artifact.name,
        "artifact_bytes": artifact.stat().st_size if artifact.exists() else None,
        "estimator": ", ".join(sorted({f.estimator for f in result.forecasters})) or None,
        "calibration": "sigmoid (Platt) on a later time block, estimator frozen; interval "
        "templates: conformal quantile offsets on that block",
        "models": result.windows,
        "skipped": result.skipped,
        "backtest": None
        if backtest is None
        else {
            "config": backtest.get("config"),
            "runtime_s": backtest.get("runtime_s"),
            "slices": {k: _card_slice(v) for k, v in backtest.get("slices", {}).items()},
        },
    }
    models_dir.mkdir(parents=True, exist_ok=True)
    json_path = models_dir / CARD_JSON
    json_path.write_text(json.dumps(card, indent=1, default=str) + "\n", encoding="utf-8")
    md_path = models_dir / CARD_MD
    md_path.write_text(_markdown(card), encoding="utf-8")
    return json_path, md_path


def band_track_record(
    models_dir: Path, template: str, horizon_days: int, band: str, velocity_band: str | None = None
) -> dict | None:
    """Backtest {n, right, hit_rate, velocity_band} of confidence `band` for template x
    horizon: within `velocity_band` (a name of `interval.VELOCITY_BANDS`, the slice's
    `by_velocity`) where given and the card holds it, else the slice's overall record
    (`velocity_band` None); None if not measured."""
    path = Path(models_dir) / CARD_JSON
    if not path.exists():
        return None
    card = json.loads(path.read_text(encoding="utf-8"))
    slices = (card.get("backtest") or {}).get("slices") or {}
    metrics = slices.get(f"{template}/{horizon_days}")
    if not metrics:
        return None
    within = (metrics.get("by_velocity") or {}).get(velocity_band or "") or {}
    measured_in = velocity_band if "bands" in within else None
    rows = within["bands"] if measured_in else metrics.get("bands") or []
    for row in rows:
        if row["band"] == band:
            return {
                "n": row["n"],
                "right": row["right"],
                "hit_rate": row["hit_rate"],
                "velocity_band": measured_in,
            }
    return None


def _skill_gate(card: dict) -> list[str]:
    """The model card's list of templates x horizons shu chooses for cards, and those held back
    with the reason (`skill_gate.judge` on the backtest recorded here)."""
    slices = (card.get("backtest") or {}).get("slices") or {}
    verdicts = []
    for key in card["models"]:
        template, horizon = key.rsplit("/", 1)
        verdicts.append(judge(template, int(horizon), slices.get(key)))
    if not verdicts:
        return []
    shown = [v for v in verdicts if v.demonstrated]
    held = [v for v in verdicts if not v.demonstrated]
    lines = [
        "",
        "## Skill gate",
        "",
        "shu chooses a template x horizon for a briefing card only when its walk-forward "
        "skill's 95% interval lies above zero against climatology and persistence "
        "(interval templates: CRPS skill vs persistence); the others are still issued, "
        "resolved and scored, and a question the user declared still gets its card, "
        'marked "no demonstrated skill".',
        "",
    ]
    if shown:
        lines += ["Shown: " + "; ".join(v.reason for v in shown) + ".", ""]
    if held:
        lines += ["Held back:", ""] + [f"- {v.template}/{v.horizon_days}: {v.reason}" for v in held]
    unshipped = [
        judge(key.rsplit("/", 1)[0], int(key.rsplit("/", 1)[1]), metrics)
        for key, metrics in slices.items()
        if key not in card["models"]
    ]
    if unshipped:
        lines += [
            "",
            "Backtested but not shipped (no model in this artifact, so never issued):",
            "",
        ]
        lines += [f"- {v.template}/{v.horizon_days}: {v.reason}" for v in unshipped]
    return lines


def _watch(card: dict) -> list[str]:
    """The calibration watch of the newest 8-week block of the walk-forward backtest: per
    confidence band and per velocity band, the observed share with its Wilson 95% interval
    against what was said, "off" when outside it (the briefing's watch, on backtest outcomes)."""
    slices = (card.get("backtest") or {}).get("slices") or {}
    rows = []
    for key, m in slices.items():
        block = m.get("newest_block")
        if not block:
            continue
        span = " .. ".join(block["origins"])
        if "bands" in block:
            for band, b in block["bands"].items():
                if b["n"]:
                    rows.append(
                        _watch_row(
                            key, span, f"{band} band", b["n"], b["hit_rate"], b["mean_confidence"]
                        )
                    )
        else:
            for band, b in block["coverage_by_velocity"].items():
                rows.append(
                    _watch_row(
                        key, span, f"80% interval, {band} stars/day", b["n"], b["coverage_80"], 0.8
                    )
                )
    if not rows:
        return []
    return [
        "",
        "## Calibration watch (newest 8 weeks of the backtest)",
        "",
        "Each slice's newest 8-week block of walk-forward origins: how often its forecasts "
        "came true (intervals: held) against what was said, with the Wilson 95% interval; "
        '"off" when what was said lies outside it. The briefing shows the same over the '
        "store's own resolved forecasts, with what shu did about each band that is off.",
        "",
        "| slice | origins | band | n | said | observed [95%] | |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ]


def _watch_row(key: str, span: str, band: str, n: int, observed: float, said: float) -> str:
    lo, hi = wilson_interval(round(observed * n), n)
    off = "off" if not lo <= said <= hi else ""
    return (
        f"| {key} | {span} | {band} | {n:,} | {_fmt(said)} | {_fmt(observed)} "
        f"[{_fmt(lo)}, {_fmt(hi)}] | {off} |"
    )


def _fmt(x: object, digits: int = 3) -> str:
    return f"{x:.{digits}f}" if isinstance(x, float) else ("" if x is None else str(x))


def _markdown(card: dict) -> str:
    lines = [
        f"# Model card: shu forecaster {card['version']}",
        "",
        f"- Trained through: {card['trained_through']} (the newest model's last day; each "
        "model's data window below)",
        f"- Estimator: {card['estimator']}; calibration: {card['calibration']}",
        f"- Artifact: `{card['artifact']}` ({card['artifact_bytes']:,} bytes, skops)"
        if card["artifact_bytes"]
        else f"- Artifact: `{card['artifact']}`",
        f"- Confidence bands on max(p, 1-p): low < {MEDIUM_FROM:.2f} <= medium < {HIGH_FROM:.2f} "
        "<= high",
        "",
        "## Models",
        "",
        "| template/horizon | trained through | estimator | fit origins | calibration origins | "
        "fit rows | cal rows | fit base rate |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, w in card["models"].items():
        lines.append(
            f"| {key} | {w.get('trained_through', card['trained_through'])} | "
            f"{w.get('estimator', '')} | {' .. '.join(w['fit_origins'])} | "
            f"{' .. '.join(w['calibration_origins'])} | {w['fit_rows']:,} | "
            f"{w['calibration_rows']:,} | {_fmt(w['fit_base_rate'])} |"
        )
    if card["models"]:
        first = next(iter(card["models"].values()))
        lines += [
            "",
            "Features (star templates): " + ", ".join(f"`{f}`" for f in first["features"]),
        ]
    if card["skipped"]:
        lines += ["", "Skipped (the training store could not support a model):", ""]
        lines += [f"- {k}: {why}" for k, why in card["skipped"].items()]
    bt = card.get("backtest")
    lines += ["", "## Walk-forward backtest", ""]
    if not bt:
        lines.append("No backtest attached (`shu train --backtest FILE.json`).")
    else:
        cfg = bt["config"] or {}
        lines += [
            f"Origins {cfg.get('start')} .. {cfg.get('end')}, weekly; refit every "
            f"{cfg.get('refit_weeks')} weeks; runtime {bt.get('runtime_s')} s.",
            "",
            "| slice | n | repos | base rate | Brier | BSS clim [95% CI] | BSS pers | ECE | "
            "high band right | void |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        unscored = []
        for key, m in bt["slices"].items():
            if not m.get("n") or "coverage" in m:
                if not m.get("n") and m.get("status"):
                    unscored.append(f"- {key}: {m['status']}")
                continue
            ci = m["ci95"]["bss_climatology"]
            high = next(b for b in m["bands"] if b["band"] == "high")
            lines.append(
                f"| {key} | {m['n']:,} | {m['n_repos']:,} | {_fmt(m['base_rate'])} | "
                f"{_fmt(m['brier'])} | {_fmt(m['bss_climatology'])} [{_fmt(ci['low'])}, "
                f"{_fmt(ci['high'])}] | {_fmt(m['bss_persistence'])} | {_fmt(m['ece'])} | "
                f"{_fmt(high['hit_rate'])} (n={high['n']:,}) | {m['n_void']:,} |"
            )
        if unscored:
            lines += [
                "",
                "Not scored (no number is given where the data cannot support one):",
                "",
                *unscored,
            ]
    intervals = {
        k: m for k, m in (bt or {}).get("slices", {}).items() if m.get("n") and "coverage" in m
    }
    if intervals:
        lines += [
            "",
            "Interval slices (coverage = share of outcomes inside the central "
            "interval; CRPS in stars/day vs persistence with its empirical spread):",
            "",
            "| slice | n | repos | coverage 50% | coverage 80% | coverage 95% | CRPS | "
            "CRPS persistence | CRPS skill |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for key, m in intervals.items():
            c = m["coverage"]
            lines.append(
                f"| {key} | {m['n']:,} | {m.get('n_repos', '')} | {_fmt(c['0.5'])} | "
                f"{_fmt(c['0.8'])} | {_fmt(c['0.95'])} | {_fmt(m['crps'])} | "
                f"{_fmt(m['crps_persistence'])} | "
                f"{_fmt(m['crps_skill_persistence'])} |"
            )
    lines += _skill_gate(card)
    lines += _watch(card)
    lines += [
        "",
        "Intended use: probabilities for the shu briefing's horizon-bound questions "
        "on GitHub star activity. Not validated for repositories outside the ranking "
        "lists' size range, nor for data after the training window without re-running "
        "`shu backtest`.",
        "",
    ]
    return "\n".join(lines)
