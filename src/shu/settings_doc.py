"""Renders `docs/settings.md` from the settings declarations (`shu.settings`): every shu.toml
setting with its environment variable, kind of value, default and description (the fields' own
`description`, declared once), then the keys of each table a list setting holds (`repos`,
`questions`, `topics`, `claims`), the category names the defaults use, and the rule for relative
paths (`settings.PATH_RULE`). `shu docs` writes it; a test fails when the committed page is
stale."""

from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Union, get_args, get_origin

from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from shu.settings import (
    PATH_RULE,
    ConfiguredClaim,
    DeclaredQuestion,
    Settings,
    Topic,
    TrackedRepo,
)

# The tables a list setting holds, in the order the page lists them.
TABLES: tuple[tuple[str, type[BaseModel]], ...] = (
    ("repos", TrackedRepo),
    ("questions", DeclaredQuestion),
    ("topics", Topic),
    ("claims", ConfiguredClaim),
)


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def kind_of(annotation: Any) -> str:
    """A setting's kind of value in words: 'text', 'path', 'whole number', 'list of repos
    tables', 'category -> list of text'…; optional ones say 'or unset'."""
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        kinds = [kind_of(a) for a in args if a is not type(None)]
        return " or ".join(kinds) + (" or unset" if type(None) in args else "")
    if origin is list:
        return f"list of {kind_of(args[0])}"
    if origin is dict:
        return f"table of {kind_of(args[0])} -> {kind_of(args[1])}"
    if hasattr(annotation, "__metadata__"):  # Annotated[str, constraints]
        return kind_of(get_args(annotation)[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "tables"
    return {
        str: "text",
        Path: "path",
        int: "whole number",
        float: "number",
        bool: "true/false",
        SecretStr: "text (secret)",
    }.get(annotation, getattr(annotation, "__name__", str(annotation)))


# Defaults a declaration's value does not say (a validator replaces it).
DEFAULT_WORDS = {"models_dir": "the models shipped with shu"}


def default_of(info: FieldInfo, name: str = "") -> str:
    """The default as shu.toml would write it; a list of tables by its entries' names."""
    if name in DEFAULT_WORDS:
        return DEFAULT_WORDS[name]
    value = info.get_default(call_default_factory=True)
    if value is PydanticUndefined:
        return "required"
    if value is None:
        return "unset"
    if isinstance(value, list) and value and isinstance(value[0], BaseModel):
        names = [
            getattr(v, "repo", None) or getattr(v, "name", None) or getattr(v, "id", "")
            for v in value
        ]
        return ", ".join(f"`{n}`" for n in names)
    if isinstance(value, dict) and len(value) > 4:
        return f"{len(value)} categories (`shu.field_watchlist`)"
    if isinstance(value, dict):
        return ", ".join(f"`{k}` -> `{v}`" for k, v in value.items()) or "{}"
    if isinstance(value, list):
        return "[]" if not value else ", ".join(f"`{v}`" for v in value)
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, str | Path):
        return f'`"{value}"`'
    return f"`{value}`"


def env_of(name: str, info: FieldInfo) -> str:
    """The environment variable(s) a setting is read from."""
    alias = info.validation_alias
    names = [a for a in getattr(alias, "choices", []) if isinstance(a, str) and a.isupper()]
    return ", ".join(f"`{n}`" for n in names or [f"SHU_{name.upper()}"])


def _table(rows: list[list[str]], head: list[str]) -> list[str]:
    return [
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
        *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows),
    ]


def _categories() -> list[str]:
    """The category names shu's defaults use: the field's, which tracked repositories take."""
    field = Settings.model_fields["field"].get_default(call_default_factory=True)
    return [
        "A tracked repository's `category` is any name you choose: tracked repositories sharing "
        "one are compared with each other. Left out, it is the repository's category in "
        "`[field]`, so the cards and the field view speak of the same categories; a repository "
        "not in `[field]` must name one. The field view's categories (`[field]`) are free "
        "names too; the default table:",
        "",
        *(f"- `{c}`: " + ", ".join(f"`{r}`" for r in repos) for c, repos in field.items()),
    ]


def render_settings_page() -> str:
    """Markdown of every setting (see the module docstring)."""
    lines = [
        "# shu settings",
        "",
        "Generated by `shu docs` from `src/shu/settings.py`; do not edit by hand (a test fails "
        "when it is stale). Settings come from, highest first: a command's own options, "
        "environment variables, `shu.toml` (the file `SHU_CONFIG` names, default `./shu.toml`; "
        "keys under `[shu]` or at the top level), the defaults below. A list or table given by "
        'an environment variable is JSON (`SHU_REPOS=\'[{"repo": "a/b", "category": '
        '"x"}]\'`). A mistake (a key no setting has, a value of the wrong kind) stops every '
        "command with one line naming it.",
        "",
        "## Relative paths",
        "",
        PATH_RULE,
        "",
        "## Settings",
        "",
    ]
    rows = [
        [
            f"`{name}`",
            env_of(name, info),
            kind_of(info.annotation),
            default_of(info, name),
            info.description or "",
        ]
        for name, info in Settings.model_fields.items()
    ]
    lines += _table(rows, ["setting", "environment", "kind", "default", "description"])
    lines += ["", "## Categories", "", *_categories(), ""]
    for key, model in TABLES:
        doc = " ".join((model.__doc__ or "").strip().split("\n\n")[0].split())
        lines += [f"## `[[{key}]]` tables", "", doc, ""]
        rows = [
            [f"`{name}`", kind_of(info.annotation), default_of(info), info.description or ""]
            for name, info in model.model_fields.items()
        ]
        lines += [*_table(rows, ["key", "kind", "default", "description"]), ""]
    return "\n".join(lines)
