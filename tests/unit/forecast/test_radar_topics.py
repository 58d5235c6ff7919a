"""The radar's topic filter: which names and descriptions carry a keyword."""

from __future__ import annotations

from shu.forecast.radar.topics import ML_TERMS, carries, matches, radar_keywords, words
from shu.settings import Topic, TrackedRepo, load_settings


def test_words_split_at_punctuation_camel_case_and_digits() -> None:
    assert words("ChatGPTNextWeb/NextChat") == {"chat", "gpt", "next", "web"}
    assert words("deepseek-ai/DeepSeek-V3") == {"deepseek", "ai", "deep", "seek", "v", "3"}


def test_short_keywords_match_whole_words_longer_ones_anywhere() -> None:
    keys = ("ai", "llama", "machine-learning")
    assert matches(keys, "mudler/LocalAI")
    assert not matches(keys, "deepseek-ai/DeepSeek-V3")  # 'ai' in the owner's name only
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


# Real (owner, name, description) rows of the ranking files (`data/stars/raw-sample/*.csv`).
OWNER_ONLY: tuple[tuple[str, str | None], ...] = (
    ("openai/shap-e", "Generate 3D objects conditioned on text or images"),
    (
        "zama-ai/fhevm",
        "FHEVM, a full-stack framework for integrating Fully Homomorphic "
        "Encryption (FHE) with blockchain applications",
    ),
    ("ai/easings.net", "Easing Functions Cheat Sheet"),
    ("YerongAI/Office-Tool", "Office Tool Plus localization projects."),
)
SAYS_WHAT_IT_DOES: tuple[tuple[str, str | None], ...] = (
    (
        "google-gemini/gemini-cli",
        "An open-source AI agent that brings the power of Gemini directly into your terminal.",
    ),
    ("olimorris/codecompanion.nvim", "✨ AI Coding, Vim Style"),
    ("cline/cline", "Autonomous coding agent right in your IDE"),
    ("roboflow/supervision", "We write your reusable computer vision tools. 💜"),
    ("karpathy/reinforcejs", "Reinforcement Learning Agents in Javascript"),
    ("hiyouga/LLaMA-Factory", None),
)


def test_the_owners_name_does_not_make_an_ml_project() -> None:
    keys = radar_keywords(load_settings())
    for repo, description in OWNER_ONLY:
        assert not matches(keys, repo, description), repo
        # the same words in the repository's own name do count
        owner = repo.split("/")[0]
        assert matches(keys, f"someone/{owner}", description), owner
    for repo, description in SAYS_WHAT_IT_DOES:
        assert matches(keys, repo, description), repo


def test_a_negated_mention_does_not_count() -> None:
    keys = radar_keywords(load_settings())
    # a tool that removes AI features from Windows 11: 'remove windows ai'
    assert not matches(
        keys, "zoicware/RemoveWindowsAI", "Force Remove Copilot, Recall and More in Windows 11"
    )
    assert matches(keys, "someone/WindowsAI")
    assert not carries("A browser extension that blocks LLM chat widgets", keys)
    assert not carries("Disable all AI features in VS Code", ["ai"])
    assert not carries("without-gpu", ["gpu"])
    # once negated and once not: it counts
    assert carries("Run LLMs locally without a GPU", keys)
    assert carries("An LLM that removes noise from audio", keys)  # the negation follows it
    # three words back at most: a negation early in a long text does not reach a late keyword
    assert carries("Remove the boilerplate from your next LLM app", ["llm"])
