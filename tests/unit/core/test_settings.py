"""Settings: defaults, environment, shu.toml, and one-line errors for bad values."""

from __future__ import annotations

import pytest

from shu.errors import ConfigError
from shu.settings import Settings, load_settings


def test_defaults_track_three_repos_with_categories(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    s = load_settings()
    assert [r.repo for r in s.repos] == [
        "pytorch/pytorch",
        "tensorflow/tensorflow",
        "ollama/ollama",
    ]
    assert s.category_of("ollama/ollama") == "inference-runtime"
    assert s.canonical("jmorganca/ollama") == "ollama/ollama"
    assert str(s.db) == "data/shu.duckdb"
    assert s.github_api_url == "https://api.github.com"


def test_env_and_toml(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shu.toml").write_text(
        '[shu]\ndb = "from-toml.duckdb"\nrepos = [{repo = "a/b", category = "x"}]\n'
    )
    assert str(load_settings().db) == "from-toml.duckdb"
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
    with pytest.raises(ConfigError, match="invalid setting repos.0.repo"):
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
    monkeypatch.setenv("SHU_HOME", str(project))
    monkeypatch.delenv("SHU_CONFIG")
    s = load_settings()
    assert s.models_dir == project / "models"
    monkeypatch.chdir(tmp_path)  # a flow task running elsewhere still looks in the same place
    assert model_path(s).parent == project / "models"
    assert load_settings(models_dir=tmp_path / "abs").models_dir == tmp_path / "abs"
