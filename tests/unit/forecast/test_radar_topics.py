"""The radar's topic filter: which names and descriptions carry a keyword."""

from __future__ import annotations

from shu.forecast.radar.topics import ML_TERMS, matches, radar_keywords, words
from shu.settings import Topic, TrackedRepo, load_settings


def test_words_split_at_punctuation_camel_case_and_digits() -> None:
    assert words("ChatGPTNextWeb/NextChat") == {"chat", "gpt", "next", "web"}
    assert words("deepseek-ai/DeepSeek-V3") == {"deepseek", "ai", "deep", "seek", "v", "3"}


def test_short_keywords_match_whole_words_longer_ones_anywhere() -> None:
    keys = ("ai", "llama", "machine-learning")
    assert matches(keys, "deepseek-ai/DeepSeek-V3")
    assert not matches(keys, "maybe-finance/maybe")  # 'ai' inside a word does not count
    assert matches(keys, "hiyouga/LLaMA-Factory")
    assert matches(keys, "josephmisiti/awesome-machine-learning")
    assert matches(keys, "x/MachineLearningNotes")  # punctuation aside
    assert not matches(keys, "lewagon/setup")
    assert not matches(keys, "lewagon/setup", "Setup for an AI bootcamp")  # "ai": names only
    assert matches(keys, "lewagon/setup", "Setup for a llama bootcamp")  # the description counts
    assert matches((), "lewagon/setup")  # no keywords: no filter


def test_default_keywords_add_the_tracked_names_and_topic_terms() -> None:
    s = load_settings(
        repos=[TrackedRepo(repo="acme/widgetron", category="platform")],
        topics=[Topic(name="sparse", pattern="sparse", term="SparseCore")],
    )
    keys = radar_keywords(s)
    assert set(ML_TERMS) <= set(keys) and {"widgetron", "sparsecore"} <= set(keys)
    assert matches(keys, "someone/widgetron-plugins")
    given = load_settings(radar_keywords=[" Robotics ", "ROS"])
    assert radar_keywords(given) == ("robotics", "ros")
    assert radar_keywords(load_settings(radar_keywords=[])) == ()
    assert not matches(radar_keywords(given), "huggingface/transformers")


def test_a_description_keeps_a_repository_its_name_does_not() -> None:
    keys = radar_keywords(load_settings())
    assert not matches(keys, "langgenius/dify")
    assert matches(keys, "langgenius/dify", "LLM app development platform")
    assert matches(keys, "langgenius/dify", "Production-ready platform for agentic workflows.")
    assert not matches(keys, "langgenius/dify", "A to-do list app")


def test_ai_in_a_description_alone_does_not_make_an_ml_project() -> None:
    """'AI' counts in a name (LocalAI) but not in a description, where it marks a bootcamp as
    often as a model; a description naming a model term still counts."""
    from shu.forecast.radar.topics import ML_TERMS, matches

    bootcamp = "Setup instructions for Le Wagon's students on their first day of AI Bootcamp"
    assert not matches(ML_TERMS, "lewagon/setup", bootcamp)
    assert matches(ML_TERMS, "mudler/LocalAI", None)
    assert matches(ML_TERMS, "acme/tool", "Serve LLM inference on your laptop")
