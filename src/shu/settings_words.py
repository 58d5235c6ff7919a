"""The settings' validation errors in the words of shu.toml: what a value should be, and for
an entry of a list of tables (`repos`, `questions`, ...) what to write, in place of pydantic's
messages ("Input should be a valid dictionary or instance of TrackedRepo")."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

# What a value should be, in the words of shu.toml, for the pydantic errors a user can reach
# from it (the rest keep pydantic's message).
_PLAIN = {
    "list_type": "should be a list, e.g. [ ... ]",
    "dict_type": "should be a table, e.g. { key = value }",
    "bool_parsing": "should be true or false",
    "bool_type": "should be true or false",
    "int_parsing": "should be a whole number",
    "int_type": "should be a whole number",
    "int_from_float": "should be a whole number",
    "float_parsing": "should be a number",
    "float_type": "should be a number",
    "string_type": 'should be a string in quotes ("...")',
}
_REPO_PATTERN = r"^[\w.-]+/[\w.-]+$"


def plain_error(error: Any, top: str, table: type[BaseModel] | None) -> str:
    """The message of pydantic `error` about setting `top` (a list of `table` entries, when it
    is one) in plain words: what to write instead."""
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "model_type" and table is not None:
        keys = ", ".join(f"{k} = ..." for k in _required(table))
        example = {"repos": '{ repo = "owner/name" }'}.get(top, "{ " + keys + " }")
        return f"each entry of {top} is a table: write {example}"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == _REPO_PATTERN:
        return "should be a GitHub repository, 'owner/name'"
    if kind == "greater_than_equal":
        return f"should be at least {ctx.get('ge')}"
    if kind in _PLAIN:
        return _PLAIN[kind]
    if kind == "value_error":  # a validator's own sentence, without pydantic's prefix
        return str(ctx.get("error") or error["msg"])
    return str(error["msg"])


def _required(model: type[BaseModel]) -> list[str]:
    """The keys a table of `model` must have."""
    return [k for k, f in model.model_fields.items() if f.is_required()]
