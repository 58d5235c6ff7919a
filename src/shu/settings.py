"""Settings: every knob shu has, with its default and help, from env (`SHU_*`), shu.toml or code.

Precedence (highest first): arguments passed in code/CLI, environment variables, `shu.toml`
(path from `SHU_CONFIG`, default `./shu.toml`), the defaults below.

Mistakes are errors that name them, never silently ignored: a `SHU_CONFIG` naming a file that
does not exist, a key no setting has (with the nearest valid one suggested), a value of the wrong
type (with where it came from: the file or the environment variable). The trained models are
the ones shipped with shu (`shipped_models_dir`, package data) unless `models_dir` says
otherwise, so where the configuration lives and the working directory never move them.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AliasChoices,
    BaseModel,
    Field,
    SecretStr,
    StringConstraints,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from shu.errors import ConfigError
from shu.field_watchlist import DEFAULT_FIELD
from shu.settings_tables import (
    DEFAULT_ALIASES,
    DEFAULT_CLAIMS,
    DEFAULT_REPOS,
    DEFAULT_TOPICS,
    ConfiguredClaim,
    DeclaredQuestion,
    Topic,
    TrackedRepo,
)
from shu.settings_words import plain_error

DEFAULT_DB = Path("data/shu.duckdb")


class Settings(BaseSettings):
    """All shu settings. Environment variables use the `SHU_` prefix unless noted."""

    model_config = SettingsConfigDict(env_prefix="SHU_", extra="forbid", populate_by_name=True)

    db: Path = Field(
        default=DEFAULT_DB,
        description="Path of the DuckDB store (env SHU_DB).",
    )
    field: dict[str, list[Annotated[str, StringConstraints(pattern=r"^[\w.-]+/[\w.-]+$")]]] = Field(
        default_factory=lambda: {k: list(v) for k, v in DEFAULT_FIELD.items()},
        description="The field the briefing compares, by category: category -> "
        "['owner/name', ...] (`[field]` in shu.toml replaces the default table, "
        "`shu.field_watchlist`); star counts only, not tracked.",
    )
    repos: list[TrackedRepo] = Field(
        default_factory=lambda: list(DEFAULT_REPOS),
        description="Tracked repositories and their categories (each's in `field` unless given).",
    )
    aliases: dict[str, str] = Field(
        default_factory=lambda: dict(DEFAULT_ALIASES),
        description="Old repository name -> current name; folded on every import.",
    )
    topics: list[Topic] = Field(
        default_factory=lambda: list(DEFAULT_TOPICS),
        description="What shu looks for in commits, release notes and documents, each a name "
        "and a regex: a commit matching a topic with a flag_column is flagged (ROCm commits "
        "fill `touches_rocm`), and a card's context quotes what the documents say about its "
        "term (`[[topics]]` tables; the list replaces the defaults).",
    )
    github_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("GITHUB_TOKEN", "SHU_GITHUB_TOKEN"),
        description="GitHub token (env GITHUB_TOKEN); never logged or stored.",
    )
    github_api_url: str = Field(
        default="https://api.github.com",
        validation_alias=AliasChoices("SHU_GITHUB_API_URL", "github_api_url"),
        description="GitHub REST base URL (GitHub Enterprise: https://HOST/api/v3).",
    )
    github_max_wait_s: float = Field(
        default=900.0,
        description="Longest wait for a rate-limit "
        "reset before stopping cleanly and saying when to retry.",
    )
    github_timeout_s: float = Field(default=30.0, description="Per-request timeout, seconds.")
    github_retries: int = Field(default=4, description="Retries on 5xx/connection errors.")
    github_commit_lookback_days: int = Field(
        default=90,
        description="Days of commits a first `shu ingest github` fetches when none "
        "are stored and --backfill is not given (--backfill fetches the whole history).",
    )
    version_tag_pattern: str = Field(
        default=r"^(?:[\w.-]*?[-_/])?v?\d+\.\d+",
        description="Regex a git tag must match to count as a release (`shu ingest git`).",
    )
    reports_dir: Path = Field(
        default=Path("reports"),
        description="Where briefings are written (`shu daily`, `shu brief`, `shu compare`; "
        "their --out wins). Unset, the reports follow the store: `reports/` for the default "
        "store (data/shu.duckdb), a `reports/` folder beside any other store "
        "(SHU_DB=/tmp/trial/shu.duckdb: /tmp/trial/reports/), so a trial store's briefings "
        "never mix with the real ones.",
    )
    models_dir: Path = Field(
        default=Path("models"),
        description="Where trained models live (read by `shu forecast` / `shu daily`, written "
        "by `shu train`); unset: the models shipped with shu, wherever it is installed.",
    )
    home: Path | None = Field(
        default=None,
        description="Folder the relative paths of shu.toml are taken under instead of the "
        "shu.toml's own folder (env SHU_HOME); see the rule for relative paths.",
    )
    schedule_cron: str = Field(
        default="0 6 * * *", description="Cron (UTC) on which `shu serve` runs the daily flow."
    )
    document_paths: list[Path] = Field(
        default_factory=list,
        description="Files or folders of documents the daily flow (re-)ingests into the corpus.",
    )
    questions: list[DeclaredQuestion] = Field(
        default_factory=list,
        description="User-declared forecast questions ([[questions]] in "
        "shu.toml: repo, template, threshold, horizon).",
    )
    probe_max_age_days: int = Field(
        default=7,
        description="Daily flow re-runs the probe when the latest run is older than this.",
    )
    claims: list[ConfiguredClaim] = Field(
        default_factory=lambda: list(DEFAULT_CLAIMS),
        description="Hardware/compiler claims checked against the probe besides those read "
        "from documents (`[[claims]]` tables in shu.toml; the list replaces the defaults).",
    )
    claim_tolerance: float = Field(
        default=0.10,
        description="Relative tolerance of an 'about' claim ('about 2.5x' holds for 2.25-2.75x).",
    )
    claim_no_speedup_tolerance: float = Field(
        default=0.05,
        description="A 'no speedup' claim holds while the measured speedup is at most 1 + this.",
    )
    claim_dtype_equivalents: dict[str, str] = Field(
        default_factory=lambda: {"float16": "bfloat16"},
        description="Claim dtype -> probe dtype it may be checked against, said so in the "
        "verdict (fp16 and bf16 share tensor-core rates on the GPUs the probe has run on).",
    )
    gharchive_url: str = Field(
        default="https://data.gharchive.org",
        validation_alias=AliasChoices("SHU_GHARCHIVE_URL", "gharchive_url"),
        description="Base URL of GH Archive's hourly files (`shu ingest gharchive --from/--to`).",
    )
    gharchive_dir: Path = Field(
        default=Path("data/gharchive"),
        description="Where downloaded GH Archive hourly files are kept.",
    )
    gharchive_paths: list[str] = Field(
        default_factory=list,
        description="Files, directories "
        "or globs of GH Archive hourly files the daily flow loads "
        "(files already loaded are skipped).",
    )
    ranking_files: list[str] = Field(
        default_factory=list,
        description="Daily ranking files "
        "(github-ranking-YYYY-MM-DD.csv) the daily flow loads, "
        "'{day}' standing for the run's day, e.g. "
        "'data/ranking/github-ranking-{day}.csv': fresh counts of "
        "the untracked repositories, for the breakout radar.",
    )
    radar_keywords: list[str] | None = Field(
        default=None,
        description="Keywords the briefing's breakout radar keeps untracked repositories by, "
        "matched against each repository's own name (not its owner's) and, where the store "
        "holds one, its description (three letters or fewer: whole words only; a mention "
        "negated by one of the three words before it, 'remove'/'disable'/'without'…, does "
        "not count). Unset: ML-framework terms "
        "(shu.forecast.radar.topics.ML_TERMS), the tracked repositories' names and the "
        "topics' terms; [] lists every repository.",
    )
    gharchive_batch_files: int = Field(
        default=24,
        ge=1,
        description="Hourly files per DuckDB "
        "scan, and per Dask task (a day: each scan's fixed cost "
        "is paid once a day of hours; memory stays within "
        "gharchive_memory_limit, DuckDB spills beyond it).",
    )
    gharchive_files_per_write: int = Field(
        default=168, ge=1, description="Hourly files written per transaction (168 = a week)."
    )
    gharchive_memory_limit: str = Field(
        default="2GB", description="DuckDB memory_limit of each GH Archive scan (spills beyond it)."
    )
    task_runner: str = Field(
        default="threads",
        pattern="^(threads|dask)$",
        description="Prefect task runner of the daily flow's fan-out: "
        "'threads' or 'dask' (needs `pip install 'shu[dask]'`).",
    )
    dask_address: str | None = Field(
        default=None,
        description="Dask scheduler address (tcp://HOST:8786); unset: a temporary LocalCluster.",
    )
    dask_workers: int = Field(
        default=2, ge=1, description="Workers of the temporary Dask LocalCluster."
    )
    prefect_analytics: bool = Field(
        default=False,
        description="Let Prefect send its anonymous usage analytics (server "
        "telemetry heartbeat, SDK events; env SHU_PREFECT_ANALYTICS). Off: shu's flows run with "
        "PREFECT_SERVER_ANALYTICS_ENABLED=false and DO_NOT_TRACK=1.",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _TomlSource(settings_cls))

    @field_validator("field")
    @classmethod
    def _one_category_each(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        """A repository of the field sits in one category (its gain would count twice)."""
        seen: dict[str, str] = {}
        for category, repos in value.items():
            for repo in repos:
                if seen.setdefault(repo, category) != category:
                    raise ValueError(f"{repo} is in both {seen[repo]!r} and {category!r}")
        return value

    @field_validator("repos")
    @classmethod
    def _categories_from_field(
        cls, value: list[TrackedRepo], info: ValidationInfo
    ) -> list[TrackedRepo]:
        """A tracked repository without a category takes its category in `field` (validated
        before `repos`)."""
        listed = {r: c for c, repos in (info.data.get("field") or {}).items() for r in repos}
        filled = []
        for r in value:
            category = r.category or listed.get(r.repo)
            if category is None:
                raise ValueError(
                    f"{r.repo} has no category and is not in [field]; "
                    'give it one (category = "...")'
                )
            filled.append(r if r.category else TrackedRepo(repo=r.repo, category=category))
        return filled

    @model_validator(mode="after")
    def _anchor_models_dir(self) -> Settings:
        """models_dir absolute once, so no later change of directory moves it: the shipped
        models when it is not set, else the path given (`PATH_RULE`: shu.toml's already taken
        under its folder, an environment variable's or an argument's under the current one)."""
        if "models_dir" not in self.model_fields_set:
            self.models_dir = shipped_models_dir()
        else:
            self.models_dir = self.models_dir.expanduser().resolve()
        return self

    def reports_dir_for(self, db: Path | str) -> Path:
        """Where the briefings of the store at `db` go: `reports_dir` when it is set (shu.toml,
        SHU_REPORTS_DIR or an argument), else `reports/` for the default store and a `reports/`
        folder beside any other."""
        if "reports_dir" in self.model_fields_set:
            return self.reports_dir
        if Path(db).resolve() == DEFAULT_DB.resolve():
            return self.reports_dir
        return Path(db).parent / "reports"

    def tracked_categories(self) -> dict[str, str]:
        """Each tracked repository's category (filled from `field` when not given), under its
        current name; a repository configured twice keeps its first."""
        out: dict[str, str] = {}
        for r in self.repos:
            out.setdefault(self.canonical(r.repo), r.category or "")
        return out

    def category_of(self, repo: str) -> str | None:
        """The configured category of `repo`, or None when it is not tracked."""
        return next((r.category for r in self.repos if r.repo == repo), None)

    def canonical(self, repo: str) -> str:
        """Fold an old repository name into its current one using the alias map."""
        return self.aliases.get(repo, repo)


def shipped_models_dir() -> Path:
    """The folder of the models shipped with shu: package data `shu/models` of an installed shu
    (in a checkout, `src/shu/models` links to the top-level `models/`)."""
    return (Path(__file__).parent / "models").resolve()


def config_path() -> Path:
    """The shu.toml in use: `SHU_CONFIG`, else `shu.toml` in the current directory."""
    return Path(os.environ.get("SHU_CONFIG") or "shu.toml")


def read_config() -> dict[str, Any]:
    """The settings `config_path()` holds: its `[shu]` table merged with top-level keys (the
    README's `[[questions]]`, `[[claims]]`, `[field]`; `[[shu.claims]]` and the like, inside
    `[shu]`, are read the same); {} when there is no shu.toml. ConfigError when SHU_CONFIG names
    a file that does not exist, the TOML is invalid, or a key is given twice."""
    path = config_path()
    if not path.is_file():
        if os.environ.get("SHU_CONFIG"):
            what = "is a directory" if path.is_dir() else "no such file"
            raise ConfigError(f"SHU_CONFIG={path}: {what}")
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc
    table = data.pop("shu", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: 'shu' must be a table ([shu]), not {type(table).__name__}")
    twice = sorted(set(table) & set(data))
    if twice:
        raise ConfigError(f"{path}: {twice[0]!r} is given both in [shu] and at the top level")
    return {**data, **table}


# Where a relative path setting points, one rule for every one of them (`PATH_SETTINGS`,
# `PATH_LIST_SETTINGS`, `home`): the README and docs/settings.md state it from here.
PATH_RULE = (
    "A relative path in shu.toml is taken under the folder of that shu.toml, or under `home` "
    "when it is set (a relative `home` is itself taken under the shu.toml's folder), so the "
    "file means the same files wherever shu is started from. A relative path given by an "
    "environment variable (`SHU_DB=trial.duckdb`, `SHU_HOME`, `SHU_MODELS_DIR`) or a command's "
    "own path argument (`--db`, `--out`, a file to ingest) is taken under the current directory."
)

# The settings that name files or folders (one, or a list of them, globs and '{day}' patterns
# included), anchored by `PATH_RULE`.
PATH_SETTINGS = ("db", "reports_dir", "models_dir", "gharchive_dir")
PATH_LIST_SETTINGS = ("document_paths", "gharchive_paths", "ranking_files")


def _under_home(data: dict[str, Any]) -> dict[str, Any]:
    """`data` (what shu.toml holds) with each relative path setting taken under its base
    (`PATH_RULE`): SHU_HOME (under the current directory), else the toml's `home` (under the
    toml's folder), else the toml's folder."""
    folder = config_path().resolve().parent

    def anchored(value: Any, base: Path) -> Any:
        if isinstance(value, str) and value and not Path(value).expanduser().is_absolute():
            return str(base / value)
        return value

    out = dict(data)
    if "home" in out:
        out["home"] = anchored(out["home"], folder)
    env_home = os.environ.get("SHU_HOME")
    home = env_home or out.get("home")
    base = Path(home).expanduser().resolve() if isinstance(home, str) and home else folder
    for key in PATH_SETTINGS:
        if key in out:
            out[key] = anchored(out[key], base)
    for key in PATH_LIST_SETTINGS:
        if isinstance(out.get(key), list):
            out[key] = [anchored(v, base) for v in out[key]]
    return out


class _TomlSource(PydanticBaseSettingsSource):
    """Reads `shu.toml` (or the file named by SHU_CONFIG) when it exists, its relative paths
    taken under `home` (`_under_home`)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return _under_home(read_config())


@lru_cache(maxsize=1)
def _cached() -> Settings:
    return load_settings()


def load_settings(**overrides: Any) -> Settings:
    """Build settings from env/shu.toml plus explicit overrides; invalid ones raise ConfigError
    naming the setting, where it came from and, for an unknown key, the nearest valid one."""
    given = {k: v for k, v in overrides.items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        errors = exc.errors()
        # an unknown key first: a misspelt one also leaves the key it meant missing
        first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        raise ConfigError(_describe(first, given)) from exc


# (a list setting of tables -> the model of each table, for naming their keys)
_TABLES: dict[str, type[BaseModel]] = {
    "repos": TrackedRepo,
    "questions": DeclaredQuestion,
    "topics": Topic,
    "claims": ConfiguredClaim,
}


def _describe(error: Any, overrides: dict[str, Any]) -> str:
    """One line for a pydantic error: what is wrong, with which setting, and where it was set."""
    loc = [str(p) for p in error["loc"]]
    top = loc[0] if loc else ""
    where = _where(top, overrides)
    if error["type"] == "extra_forbidden":
        key = loc[-1]
        model = _TABLES.get(top) if len(loc) > 1 else Settings
        valid = list(model.model_fields) if model else []
        near = difflib.get_close_matches(key, valid, n=1, cutoff=0.6)
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        inside = f" in {top}[{loc[1]}]" if len(loc) > 2 else ""
        return f"{where}: unknown setting {key!r}{inside}{hint}"
    name = top + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc[1:])
    if error["type"] == "missing":
        return f"{where}: setting {name} is required and missing"
    shown = repr(error.get("input"))
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return f"{where}: invalid setting {name} = {shown}: {plain_error(error, top, _TABLES.get(top))}"


def source_of(key: str) -> str:
    """Where setting `key` was set, for an error about its value: the environment variable or
    the shu.toml in use."""
    return _where(key, {})


def _where(key: str, overrides: dict[str, Any]) -> str:
    """Where setting `key` came from: an argument, an environment variable or the shu.toml."""
    if key in overrides:
        return "argument"
    field = Settings.model_fields.get(key)
    names = [f"SHU_{key.upper()}"]
    if field is not None and isinstance(field.validation_alias, AliasChoices):
        names = [str(c) for c in field.validation_alias.choices if str(c).isupper()] or names
    for name in names:
        if name in os.environ:
            return f"environment variable {name}"
    return str(config_path().resolve())


def get_settings() -> Settings:
    """The process-wide settings (read once)."""
    return _cached()
