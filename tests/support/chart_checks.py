"""Inspecting a rendered chart through matplotlib's own objects (figure -> axes -> artists), so a
chart's test says in one line what a reader would see wrong.

- `covered_data(ax)`: the plotted data points (display pixels) the axes' legend box covers: every
  line sampled every pixel along its segments, every marker, the outline of every filled area
  and of every bar or shaded span. Artists with gid "guide" (a zero line, a window's start) are
  not data.
- `overlapping_texts(fig)`: the pairs of visible texts whose boxes overlap (titles, axis labels,
  tick labels inside the view, annotations, figure texts, each legend as one box).
- `visible_ticks(axis)`: the tick values an axis shows inside its view.
- `gap_share(ax)`: how much of the axes' area the gap bands cover (patches with gid "gap").

Each renders the figure first (`fig.canvas.draw()`), so the boxes are the PNG's.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from matplotlib.collections import Collection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

GUIDE = "guide"


def _renderer(fig: Figure) -> Any:
    fig.canvas.draw()
    return fig.canvas.get_renderer()  # type: ignore[attr-defined]


def _along(points: np.ndarray, step: float = 1.0) -> np.ndarray:
    """`points` (display pixels, a polyline; NaN breaks it) with a point every `step` pixels."""
    out = [points[np.isfinite(points).all(axis=1)]]
    for a, b in itertools.pairwise(points):
        if not (np.isfinite(a).all() and np.isfinite(b).all()):
            continue
        n = int(np.hypot(*(b - a)) / step)
        if n > 1:
            t = np.linspace(0, 1, n)[:, None]
            out.append(a + t * (b - a))
    return np.concatenate(out) if out else np.empty((0, 2))


def data_points(ax: Any, renderer: Any) -> np.ndarray:
    """The display pixels of everything plotted on `ax` that is data (see the module)."""
    found: list[np.ndarray] = []
    for artist in ax.get_children():
        if not artist.get_visible() or artist.get_gid() == GUIDE:
            continue
        if isinstance(artist, Line2D):
            xy = np.asarray(artist.get_xydata(), dtype=float)
            found.append(_along(artist.get_transform().transform(xy)))
        elif isinstance(artist, Collection):
            offsets = np.asarray(artist.get_offsets(), dtype=float)
            if len(offsets) and not np.allclose(offsets, 0):
                found.append(artist.get_offset_transform().transform(offsets))
            for path in artist.get_paths():
                shape = artist.get_transform().transform_path(path)
                found.append(_along(np.asarray(shape.vertices, dtype=float)))
        elif isinstance(artist, Patch) and artist is not ax.patch:
            box = artist.get_window_extent(renderer)
            corners = np.array(
                [[box.x0, box.y0], [box.x1, box.y0], [box.x1, box.y1], [box.x0, box.y1]]
            )
            found.append(_along(np.vstack([corners, corners[:1]])))
    return np.concatenate(found) if found else np.empty((0, 2))


def covered_data(ax: Any) -> np.ndarray:
    """The data points of `ax` inside its legend's box (none when it has no legend)."""
    legend = ax.get_legend()
    if legend is None:
        return np.empty((0, 2))
    renderer = _renderer(ax.figure)
    box = legend.get_window_extent(renderer)
    points = data_points(ax, renderer)
    inside = (
        (points[:, 0] > box.x0)
        & (points[:, 0] < box.x1)
        & (points[:, 1] > box.y0)
        & (points[:, 1] < box.y1)
    )
    return points[inside]


def _in_view(axis: Any, value: float) -> bool:
    low, high = sorted(axis.get_view_interval())
    return bool(low - 1e-9 <= value <= high + 1e-9)


def visible_ticks(axis: Any) -> list[float]:
    """The major tick values `axis` shows inside its view."""
    return [float(v) for v in axis.get_majorticklocs() if _in_view(axis, v)]


def text_boxes(fig: Figure) -> list[tuple[str, Bbox]]:
    """(text, display box) of every visible, non-empty text of `fig`; a legend as one box."""
    renderer = _renderer(fig)
    texts: list[Text] = list(fig.texts)  # the suptitle among them
    boxes: list[tuple[str, Bbox]] = []
    for ax in fig.axes:
        # the three titles (centre, left, right), which matplotlib keeps as these attributes
        texts += [getattr(ax, name) for name in ("title", "_left_title", "_right_title")]
        texts += [*ax.texts, ax.xaxis.label, ax.yaxis.label]
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks():
                if _in_view(axis, tick.get_loc()):
                    texts += [tick.label1, tick.label2]
        legend = ax.get_legend()
        if legend is not None and legend.get_visible():
            boxes.append(("legend", legend.get_window_extent(renderer)))
    for text in dict.fromkeys(texts):  # each text once
        if text.get_visible() and text.get_text().strip():
            boxes.append((text.get_text(), text.get_window_extent(renderer)))
    return boxes


def overlapping_texts(fig: Figure) -> list[tuple[str, str]]:
    """The pairs of texts of `fig` whose boxes overlap."""
    boxes = text_boxes(fig)
    return [
        (a, b)
        for i, (a, box_a) in enumerate(boxes)
        for b, box_b in boxes[i + 1 :]
        if box_a.overlaps(box_b)
    ]


def gap_share(ax: Any) -> float:
    """The share of `ax`'s area covered by its gap bands (patches with gid 'gap')."""
    renderer = _renderer(ax.figure)
    frame = ax.get_window_extent(renderer)
    covered = 0.0
    for patch in ax.patches:
        if patch.get_gid() == "gap":
            box = Bbox.intersection(patch.get_window_extent(renderer), frame)
            if box is not None:
                covered += box.width * box.height
    return covered / (frame.width * frame.height)
