"""The trained forecaster on disk: saving and loading it safely (skops), and merging a run into it.

`models/forecaster.skops` (`MODEL_FILE` in `settings.models_dir`) holds every binary and interval
forecaster of one training run with its version. Files are written with skops (no pickle) and
loaded only when every type in them is one the forecasters use. `merge_previous` folds a new run
into the models already saved (`shu train --merge`), so one store can train the star templates
and another the ROCm ones into one artifact.
"""

from __future__ import annotations

import io
import json
import re
import sys
import zipfile
from datetime import date
from pathlib import Path
from types import ModuleType

import numpy as np

from shu.errors import StoreError
from shu.forecast.models.estimator import LogitVote
from shu.forecast.models.forecaster import Forecaster
from shu.forecast.models.interval import IntervalForecaster
from shu.forecast.models.train import TrainResult, version_of
from shu.forecast.models.trees import BoostedTrees
from shu.settings import Settings

MODEL_FILE = "forecaster.skops"
# The model card beside it (`evaluation.model_card` writes it; the skill gate and the briefing
# read its backtest).
CARD_JSON = "forecaster.json"


def model_path(settings: Settings) -> Path:
    """Where the trained forecaster lives."""
    return Path(settings.models_dir) / MODEL_FILE


def skops_io() -> ModuleType:
    """`skops.io`, imported without importing torch.

    Importing it lists sklearn's estimators (`sklearn.utils.all_estimators`), which walks every
    sklearn package, `sklearn.externals.array_api_compat.torch` among them: that imports torch
    (about 4 CPU s a process) for nothing, as the walk keeps no class from `externals`. The walk
    skips a package that cannot be imported, so while skops is imported torch is made
    unimportable (unless it is loaded already); the list of trusted types is the same. A thread
    importing torch meanwhile would fail: the probe, torch's one user, never runs beside a model
    load (the daily flow forecasts, then probes).
    """
    if "skops.io" in sys.modules or "torch" in sys.modules:
        import skops.io

        return skops.io
    sys.modules["torch"] = None  # type: ignore[assignment]  # `import torch` raises ImportError
    try:
        import skops.io

        return skops.io
    finally:
        if "torch" in sys.modules and sys.modules["torch"] is None:
            del sys.modules["torch"]


def save_forecasters(path: Path, forecasters: list, version: str) -> Path:
    """Write the forecasters (binary and interval) to `path` with skops (safe serialisation)."""
    sio = skops_io()

    bundle = {"version": version, "forecasters": [f.bundle() for f in forecasters]}
    path.parent.mkdir(parents=True, exist_ok=True)
    sio.dump(bundle, path, compression=zipfile.ZIP_DEFLATED, compresslevel=9)
    return path


# Types a forecaster file may contain beyond skops' defaults (checked before loading).
_EXPECTED_TYPE_PREFIXES = ("sklearn.", "numpy.", "builtins.", "scipy.")
_OWN_TYPES = (f"{LogitVote.__module__}.LogitVote", f"{BoostedTrees.__module__}.BoostedTrees")
# Modules our own types lived in when older files were written -> where they live now: such a
# file is read with its recorded module names rewritten, so it loads as the same objects.
MOVED_MODULES = {
    "shu.forecast.model": LogitVote.__module__,
    "shu.forecast.trees": BoostedTrees.__module__,
}


def _current_paths(path: Path) -> bytes:
    """The file's bytes, its schema's module names of moved types rewritten (`MOVED_MODULES`)."""
    data = path.read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as old:
        schema = old.read("schema.json").decode("utf-8")
        moved = re.sub(
            r'("__module__":\s*")(' + "|".join(map(re.escape, MOVED_MODULES)) + r')"',
            lambda m: m.group(1) + MOVED_MODULES[m.group(2)] + '"',
            schema,
        )
        if moved == schema:
            return data
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as new:
            for item in old.infolist():
                content = moved.encode("utf-8") if item.filename == "schema.json" else None
                new.writestr(item, content if content is not None else old.read(item))
    return out.getvalue()


def load_forecasters(path: Path) -> tuple[str, list]:
    """Read a skops file written by `save_forecasters`; refuse unexpected types."""
    sio = skops_io()

    if not path.exists():
        raise StoreError(f"no model at {path}: run `shu train` first")
    data = _current_paths(path)
    untrusted = sio.get_untrusted_types(data=data)
    unexpected = [
        t for t in untrusted if not t.startswith(_EXPECTED_TYPE_PREFIXES) and t not in _OWN_TYPES
    ]
    if unexpected:
        raise StoreError(f"{path}: refusing to load unexpected types {unexpected[:3]}")
    bundle = sio.loads(data, trusted=untrusted)
    return bundle["version"], [
        IntervalForecaster.from_bundle(d)
        if d.get("kind") == "interval"
        else Forecaster(
            d["template"],
            int(d["horizon_days"]),
            list(d["features"]),
            d["model"],
            np.asarray(d["reference"]),
            d["estimator"],
            int(d["fit_rows"]),
            int(d["calibration_rows"]),
            {
                int(b): float(v)
                for b, v in zip(
                    d.get("base_rate_buckets", ()), d.get("base_rate_values", ()), strict=True
                )
            },
            climatology=d.get("climatology"),
            tail=None if d.get("tail") is None else (float(d["tail"][0]), float(d["tail"][1])),
        )
        for d in bundle["forecasters"]
    ]


def merge_previous(
    result: TrainResult, models_dir: Path, backtest: dict | None = None
) -> tuple[TrainResult, dict | None]:
    """`result` plus the models saved in `models_dir` that it did not retrain (a model of the
    same template x horizon is replaced; skips it trained are no longer listed), and the
    backtest for the merged card: `backtest` with the saved card's slices of every template x
    horizon this run did not retrain that `backtest` lacks (so merging the ROCm models with a
    backtest file of star slices only, or the star models with one of ROCm slices only, keeps
    the other family's record and its skill gate), or the saved card's backtest without one."""
    card_path = Path(models_dir) / CARD_JSON
    if not (Path(models_dir) / MODEL_FILE).exists() or not card_path.exists():
        raise StoreError(f"--merge: no saved model and card in {models_dir} to merge into")
    _, previous = load_forecasters(Path(models_dir) / MODEL_FILE)
    card = json.loads(card_path.read_text(encoding="utf-8"))
    new = {f"{f.template}/{f.horizon_days}" for f in result.forecasters}
    kept = [f for f in previous if f"{f.template}/{f.horizon_days}" not in new]
    windows = {k: w for k, w in card["models"].items() if k not in new} | result.windows
    skipped = {k: why for k, why in card.get("skipped", {}).items() if k not in new}
    skipped |= {k: why for k, why in result.skipped.items() if k not in windows}
    last = max(result.trained_through, date.fromisoformat(card["trained_through"]))
    estimators = "+".join(sorted({w.get("estimator", "hgb") for w in windows.values()}))
    forecasters = kept + result.forecasters
    merged = TrainResult(
        version_of(last, estimators, windows, forecasters), last, forecasters, skipped, windows
    )
    return merged, merge_backtests(backtest, card.get("backtest"), retrained=new)


def merge_backtests(given: dict | None, previous: dict | None, retrained: set[str]) -> dict | None:
    """`given` plus the `previous` slices whose template x horizon it lacks and that were not
    `retrained` (a retrained model's old slice no longer describes it); `previous` when nothing
    is given."""
    if given is None:
        return previous
    slices = dict(given.get("slices") or {})
    for key, metrics in ((previous or {}).get("slices") or {}).items():
        if key not in slices and key not in retrained:
            slices[key] = metrics
    return {**given, "slices": slices}
