"""What every briefing chart shares in its layout: the figure, a legend that never covers the
data, a log axis without a zero, and the ending (source line, slanted dates, layout, PNG).

- `new_figure`: a matplotlib `Figure` with its own Agg canvas (no pyplot state, nothing to
  close), which the chart functions return so that a test can inspect what was drawn.
- `place_legends`: each axes' legend in the first corner or edge of the axes where its box
  touches none of the plotted data (lines, fills, markers, bars, shaded days), and outside the
  axes, below its x axis, where no such spot exists; the layout is redone after each move.
- `log_axis`: a base-10 log y axis whose values at or below zero are left out (a log axis has
  no zero), returning how many were left out so the chart can say so.
- `finish` / `save`: the source line in grey at the bottom left, dates slanted, the layout
  inside `rect`, the legends placed; then the PNG written.

Artists that are not data (a zero line, the window's start, the thin band that marks the days
without counts) carry `GUIDE` as their gid and a legend may cover them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.path import Path as MplPath
from matplotlib.transforms import Bbox, offset_copy

GUIDE = "guide"  # gid of an artist a legend may cover
# In-axes legend spots, most preferred first (matplotlib's location names).
Spot = Literal[
    "upper left",
    "upper right",
    "lower left",
    "lower right",
    "upper center",
    "lower center",
    "center left",
    "center right",
]
Rect = tuple[float, float, float, float]  # a layout's (left, bottom, right, top), figure fractions
LEGEND_SPOTS: tuple[Spot, ...] = get_args(Spot)  # in `Spot`'s order
LEGEND_PAD_PX = 3.0  # clearance kept between a legend and the nearest data, in pixels


def new_figure(width: float, height: float, dpi: int = 100) -> Figure:
    """A figure of `width` x `height` inches drawn by Agg (PNG), outside pyplot."""
    fig = Figure(figsize=(width, height), dpi=dpi)
    FigureCanvasAgg(fig)
    return fig


def log_axis(ax: Any, values: Any) -> int:
    """Put `ax` on a base-10 log y scale; return how many of `values` (all the y values it
    will draw) are at or below zero, which a log axis cannot show (the caller masks them)."""
    ax.set_yscale("log")
    array = np.asarray(values, dtype=float)
    return int(np.sum(array[~np.isnan(array)] <= 0))


def _segments(xy: np.ndarray) -> list[np.ndarray]:
    """The runs of finite points of a line (a NaN breaks it)."""
    finite = np.isfinite(xy).all(axis=1)
    out, start = [], None
    for i, ok in enumerate([*finite, False]):
        if ok and start is None:
            start = i
        elif not ok and start is not None:
            out.append(xy[start:i])
            start = None
    return out


def _data_touches(ax: Any, box: Bbox, renderer: Any) -> bool:
    """Whether any plotted data of `ax` (not a `GUIDE`) reaches into the display box `box`."""
    for line in ax.get_lines():
        if not line.get_visible() or line.get_gid() == GUIDE:
            continue
        xy = line.get_transform().transform(np.asarray(line.get_xydata(), dtype=float))
        for seg in _segments(xy):
            if len(seg) == 1:
                if box.contains(*seg[0]):
                    return True
            elif MplPath(seg).intersects_bbox(box, filled=False):
                return True
    for coll in ax.collections:
        if not coll.get_visible() or coll.get_gid() == GUIDE:
            continue
        offsets = np.asarray(coll.get_offsets(), dtype=float)
        if len(offsets) and not np.allclose(offsets, 0):  # markers: their positions
            points = coll.get_offset_transform().transform(offsets)
            if any(box.contains(x, y) for x, y in points if np.isfinite([x, y]).all()):
                return True
        transform = coll.get_transform()
        for path in coll.get_paths():
            shape = transform.transform_path(path)
            if len(shape.vertices) and shape.intersects_bbox(box, filled=True):
                return True
    for patch in ax.patches:
        if not patch.get_visible() or patch.get_gid() == GUIDE:
            continue
        if patch.get_window_extent(renderer).overlaps(box):
            return True
    return False


def _legend_clear(ax: Any, renderer: Any) -> bool:
    legend = ax.get_legend()
    box = legend.get_window_extent(renderer).padded(LEGEND_PAD_PX)
    return not _data_touches(ax, box, renderer)


def _outside(ax: Any, renderer: Any) -> None:
    """Move `ax`'s legend outside the axes: below it, under its x tick labels and label, in
    up to three columns."""
    legend = ax.get_legend()
    handles, labels = legend.legend_handles, [t.get_text() for t in legend.get_texts()]
    size = legend.get_texts()[0].get_fontsize() if labels else 7
    labels_box = ax.xaxis.get_tightbbox(renderer)  # None when the axis shows no labels
    below = ax.get_window_extent(renderer).y0 - labels_box.y0 if labels_box is not None else 0.0
    anchor = offset_copy(ax.transAxes, fig=ax.figure, y=-(below + 4), units="dots")
    ax.legend(
        handles,
        labels,
        fontsize=size,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        bbox_transform=anchor,
        ncols=min(3, len(labels)),
        borderaxespad=0.0,
    )
    ax.get_legend().set_gid("outside")


def place_legends(fig: Figure, rect: Rect) -> None:
    """Each axes' legend in the first of `LEGEND_SPOTS` clear of its data, else outside the
    axes below it; the layout (`tight_layout` inside `rect`) redone after a legend moves
    out, and the in-axes legends checked again against the new layout."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]  # Agg's canvas has it
    for _ in range(3):
        moved = False
        for ax in fig.axes:
            legend = ax.get_legend()
            if legend is None or legend.get_gid() == "outside":
                continue
            for spot in LEGEND_SPOTS:
                legend.set_loc(spot)
                if _legend_clear(ax, renderer):
                    break
            else:
                _outside(ax, renderer)
                moved = True
        if not moved:
            return
        fig.tight_layout(rect=rect)


def finish(fig: Figure, source: str, rect: Rect, y: float = 0.01, dates: bool = True) -> Figure:
    """Every chart's ending: its source line in grey at the bottom left, dates on the x axis
    slanted (`dates`), the layout inside `rect`, the legends placed off the data."""
    fig.text(0.01, y, source, fontsize=7, color="grey")
    if dates:
        fig.autofmt_xdate()
    fig.tight_layout(rect=rect)
    place_legends(fig, rect)
    return fig


def save(fig: Figure, path: Path) -> Path:
    """Write `fig` as a PNG at `path` (its folder made); return `path`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path
