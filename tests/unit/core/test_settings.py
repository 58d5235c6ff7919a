"""Settings: defaults, environment, shu.toml, and one-line errors for bad values."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from shu.errors import ConfigError
from shu.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parents[3]


def test_defaults_track_three_repos_in_their_field_categories(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert [r.repo for r in s.repos] == [
        "pytorch/pytorch",
        "tensorflow/tensorflow",
        "ollama/ollama",
    ]
    # a tracked repository takes its category in the field, so cards and field view agree
    assert s.category_of("pytorch/pytorch") == "training frameworks"
    assert s.category_of("ollama/ollama") == "local-model apps"
    assert s.canonical("jmorganca/ollama") == "ollama/ollama"
    assert str(s.db) == "data/shu.duckdb"
    assert s.github_api_url == "https://api.github.com"


def test_a_tracked_repository_without_a_category_takes_its_field_category(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    toml = tmp_path / "shu.toml"
    toml.write_text('repos = [{ repo = "mudler/LocalAI" }, { repo = "a/b", category = "x" }]\n')
    s = load_settings()
    assert s.tracked_categories() == {"mudler/LocalAI": "local-model apps", "a/b": "x"}
    # the shu.toml's own [field] is the one read; the default repositories keep theirs
    toml.write_text('repos = [{ repo = "mudler/LocalAI" }]\n[field]\napps = ["mudler/LocalAI"]\n')
    assert load_settings().category_of("mudler/LocalAI") == "apps"


def test_env_and_toml(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shu.toml").write_text(
        '[shu]\ndb = "from-toml.duckdb"\nrepos = [{repo = "a/b", category = "x"}]\n'
    )
    assert load_settings().db == tmp_path.resolve() / "from-toml.duckdb"  # under the toml's folder
    monkeypatch.setenv("SHU_DB", "from-env.duckdb")
    monkeypatch.setenv("SHU_GITHUB_API_URL", "http://127.0.0.1:9/api")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    s = load_settings()
    assert str(s.db) == "from-env.duckdb" and s.repos[0].repo == "a/b"
    assert s.github_api_url == "http://127.0.0.1:9/api"
    assert "ghp_secret" not in repr(s) and s.github_token.get_secret_value() == "ghp_secret"


def test_invalid_values_are_one_line(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shu.toml").write_text('[shu]\nrepos = [{repo = "not a repo", category = "x"}]\n')
    with pytest.raises(ConfigError, match=r"invalid setting repos\[0\]\.repo = 'not a repo'"):
        load_settings()
    (tmp_path / "shu.toml").write_text("[shu\n")
    with pytest.raises(ConfigError, match="shu.toml: invalid TOML"):
        load_settings()


def test_every_setting_has_a_description():
    assert all(f.description for f in Settings.model_fields.values())


def test_models_dir_does_not_depend_on_the_working_directory(monkeypatch, tmp_path):
    from shu.forecast.models.artifact import model_path

    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "shu.toml").write_text('[shu]\nmodels_dir = "trained"\n')
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("SHU_CONFIG", str(project / "shu.toml"))
    s = load_settings()
    assert s.models_dir == project / "trained"  # beside the shu.toml, not under the cwd
    # given by an environment variable, relative to the current directory (as SHU_DB is),
    # SHU_HOME notwithstanding: it re-bases shu.toml's paths only
    monkeypatch.setenv("SHU_HOME", str(project))
    monkeypatch.setenv("SHU_MODELS_DIR", "models")
    monkeypatch.delenv("SHU_CONFIG")
    s = load_settings()
    assert s.models_dir == elsewhere.resolve() / "models"
    monkeypatch.chdir(tmp_path)  # a flow task running elsewhere still looks in the same place
    assert model_path(s).parent == elsewhere.resolve() / "models"
    assert load_settings(models_dir=tmp_path / "abs").models_dir == tmp_path / "abs"


def test_a_missing_config_file_is_an_error(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHU_CONFIG", str(tmp_path / "nowhere.toml"))
    with pytest.raises(ConfigError, match=r"^SHU_CONFIG=.*nowhere\.toml: no such file$"):
        load_settings()
    monkeypatch.setenv("SHU_CONFIG", str(tmp_path))
    with pytest.raises(ConfigError, match="is a directory"):
        load_settings()


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[shu]\nrepoz = []\n", r"shu\.toml: unknown setting 'repoz' \(did you mean 'repos'\?\)$"),
        (
            '[shu]\nrepos = [{repo = "a/b", categroy = "x"}]\n',
            r"unknown setting 'categroy' in repos\[0\] \(did you mean 'category'\?\)$",
        ),
        (
            '[[question]]\nrepo = "a/b"\n',
            r"unknown setting 'question' \(did you mean 'questions'\?\)",
        ),
        ("[shu]\nxyzzy = 1\n", r"unknown setting 'xyzzy'$"),
        (
            '[shu]\ngithub_retries = "four"\n',
            r"shu\.toml: invalid setting github_retries = 'four': should be a whole number$",
        ),
        (
            '[shu]\nrepos = "pytorch/pytorch"\n',
            r"invalid setting repos = 'pytorch/pytorch': should be a list, e\.g\. \[ \.\.\. \]$",
        ),
        (  # a plain name where a table is meant: what to write, not pydantic's model name
            '[shu]\nrepos = ["pytorch/pytorch"]\n',
            r"invalid setting repos\[0\] = 'pytorch/pytorch': each entry of repos is a table: "
            r'write \{ repo = "owner/name" \}$',
        ),
        (  # neither a category nor a place in the field: one line saying what to add
            '[shu]\nrepos = [{ repo = "acme/kit" }]\n',
            r"invalid setting repos = \[\{'repo': 'acme/kit'\}\]: acme/kit has no category and "
            r'is not in \[field\]; give it one \(category = "\.\.\."\)$',
        ),
        (
            '[shu]\nrepos = [{ repo = "pytorch", category = "platform" }]\n',
            r"repos\[0\]\.repo = 'pytorch': should be a GitHub repository, 'owner/name'$",
        ),
        ('[shu]\nprefect_analytics = "maybe"\n', r"= 'maybe': should be true or false$"),
        ("[shu]\ngharchive_batch_files = 0\n", r"= 0: should be at least 1$"),
        ('[shu]\ndb = "a"\n[[questions]]\nx = 1\n[[shu.questions]]\nx = 2\n', "given both"),
    ],
)
def test_unknown_keys_and_wrong_types_name_the_setting(monkeypatch, tmp_path, toml, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shu.toml").write_text(toml)
    with pytest.raises(ConfigError, match=message) as caught:
        load_settings()
    assert "\n" not in str(caught.value)


def test_relative_paths_in_shu_toml_are_taken_under_its_folder(monkeypatch, tmp_path):
    """A relative db, reports_dir or ranking file in shu.toml means the same files wherever
    shu is started from (as models_dir does); SHU_DB stays relative to the current directory."""
    home = tmp_path / "project"
    home.mkdir()
    (home / "shu.toml").write_text(
        '[shu]\ndb = "data/s.duckdb"\nreports_dir = "out"\nmodels_dir = "m"\n'
        'ranking_files = ["rank/r-{day}.csv", "/abs/r.csv"]\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("SHU_CONFIG", str(home / "shu.toml"))
    s = load_settings()
    home = home.resolve()
    assert s.db == home / "data/s.duckdb" and s.reports_dir == home / "out"
    assert s.models_dir == home / "m"
    assert s.ranking_files == [str(home / "rank/r-{day}.csv"), "/abs/r.csv"]
    monkeypatch.setenv("SHU_HOME", str(tmp_path / "h"))
    assert load_settings().db == tmp_path / "h" / "data/s.duckdb"
    assert load_settings().models_dir == tmp_path / "h" / "m"
    monkeypatch.setenv("SHU_DB", "here.duckdb")
    assert load_settings().db == Path("here.duckdb")


def test_every_relative_path_follows_one_rule(monkeypatch, tmp_path):
    """`settings.PATH_RULE`: in shu.toml, under its folder, or under `home` (itself under the
    toml's folder when relative); from an environment variable, under the current directory.
    No setting is an exception (models_dir included)."""
    from shu.settings import PATH_LIST_SETTINGS, PATH_SETTINGS

    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.setenv("SHU_CONFIG", str(project / "shu.toml"))
    for home, base in (("", project), ('home = "base"\n', project / "base")):
        lines = [f'{key} = "rel/{key}"' for key in PATH_SETTINGS]
        lines += [f'{key} = ["rel/{key}"]' for key in PATH_LIST_SETTINGS]
        (project / "shu.toml").write_text("[shu]\n" + home + "\n".join(lines) + "\n")
        s = load_settings()
        for key in PATH_SETTINGS:
            assert Path(getattr(s, key)) == base.resolve() / f"rel/{key}", key
        for key in PATH_LIST_SETTINGS:
            assert [Path(v) for v in getattr(s, key)] == [base.resolve() / f"rel/{key}"], key
    (project / "shu.toml").write_text("[shu]\n")
    for key in PATH_SETTINGS:  # an environment variable's relative path: the current directory
        monkeypatch.setenv(f"SHU_{key.upper()}", f"env/{key}")
        assert Path(getattr(load_settings(), key)).absolute() == elsewhere / f"env/{key}", key


def test_environment_and_arguments_are_checked_too(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SHU_GITHUB_RETRIES", "many")
    with pytest.raises(ConfigError, match="^environment variable SHU_GITHUB_RETRIES: invalid"):
        load_settings()
    monkeypatch.delenv("SHU_GITHUB_RETRIES")
    with pytest.raises(ConfigError, match=r"^argument: unknown setting 'repoz' \(did you mean"):
        load_settings(repoz=[])


def test_top_level_questions_are_read_beside_the_shu_table(monkeypatch, tmp_path):
    """The README declares questions as top-level `[[questions]]` next to `[shu]`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shu.toml").write_text(
        '[shu]\ndb = "x.duckdb"\n\n[[questions]]\nrepo = "pytorch/pytorch"\n'
        'template = "star_accel_reach"\nthreshold = 1.5\nhorizon = 30\n'
    )
    s = load_settings()
    assert s.db == tmp_path.resolve() / "x.duckdb" and [q.repo for q in s.questions] == [
        "pytorch/pytorch"
    ]


CLAIM = (
    'id = "h200_softmax_2x"\ntext = "Compiled softmax is at least 2x eager on an H200"\n'
    'metric = "speedup"\nworkload = "softmax"\ndevice = "H200"\ncomparison = "at least"\n'
    "value = 2.0\n"
)
FIELD = '"inference and serving" = ["vllm-project/vllm", "ggml-org/llama.cpp"]\n'


@pytest.mark.parametrize(
    "toml",
    [
        f'[shu]\ndb = "x.duckdb"\n\n[[claims]]\n{CLAIM}\n[field]\n{FIELD}',  # the README's
        f'[shu]\ndb = "x.duckdb"\n\n[[shu.claims]]\n{CLAIM}\n[shu.field]\n{FIELD}',  # older
    ],
    ids=["top-level", "inside-shu"],
)
def test_tables_of_settings_read_alike_at_the_top_level_and_inside_shu(monkeypatch, tmp_path, toml):
    """The README writes `[[claims]]` and `[field]` at the top level beside `[shu]`; the older
    `[[shu.claims]]` / `[shu.field]` spelling gives the same settings."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shu.toml").write_text(toml)
    s = load_settings()
    assert s.db == tmp_path.resolve() / "x.duckdb"
    assert [(c.id, c.workload, c.device, c.value) for c in s.claims] == [
        ("h200_softmax_2x", "softmax", "H200", 2.0)
    ]
    assert s.field == {"inference and serving": ["vllm-project/vllm", "ggml-org/llama.cpp"]}


README_TOML = re.findall(
    r"^```toml\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S
)


@pytest.mark.parametrize("toml", README_TOML, ids=[f"block{i}" for i in range(len(README_TOML))])
def test_every_shu_toml_in_the_readme_loads_as_written(monkeypatch, tmp_path, toml):
    """Each `toml` block of the README, written as a shu.toml, is read without a complaint and
    sets each key it names (so the README's spelling is the loader's)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shu.toml").write_text(toml)
    s = load_settings()
    data = tomllib.loads(toml)
    for key in [*data.pop("shu", {}), *data]:
        assert key in s.model_fields_set, key


def test_the_shipped_model_is_found_wherever_the_configuration_lives(monkeypatch, tmp_path):
    """A shu.toml elsewhere, any working directory: the shipped model, unless models_dir says
    otherwise."""
    from shu.forecast.models.artifact import model_path
    from shu.settings import shipped_models_dir

    shipped = shipped_models_dir()
    assert (shipped / "forecaster.skops").is_file() and (shipped / "forecaster.json").is_file()
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "shu.toml").write_text('[shu]\nrepos = [{repo = "a/b", category = "x"}]\n')
    monkeypatch.setenv("SHU_CONFIG", str(project / "shu.toml"))
    for cwd in (project, elsewhere):
        monkeypatch.chdir(cwd)
        assert model_path(load_settings()) == shipped / "forecaster.skops"
    (project / "shu.toml").write_text('[shu]\nmodels_dir = "mine"\n')
    assert load_settings().models_dir == project / "mine"
