"""The radar's topic filter: which untracked repositories a framework analyst wants to see.

The radar ranks every repository in the store, and most of them (course material, downloaders,
interview guides) are no business of someone following ML frameworks. The briefing's "Breaking
out" section keeps only repositories whose name (and description, where the `repos` table holds
one) carries one of the radar's keywords, the name being the repository's own, not its owner's
(`openai/shap-e` is kept for what it does or not at all, never for `openai`). The keywords
(`radar_keywords`): unset, shu's ML-framework terms, with phrases descriptions use for what an
ML tool does ("computer vision", "coding agent") (`ML_TERMS`), the names of the tracked
repositories and the terms of the configured topics; an empty list turns the filter off.

A keyword counts only where it is not negated: one of the `NEGATING` words ('remove',
'disable', 'block', 'uninstall', 'debloat', 'without', 'anti'…) among the `NEGATION_WORDS`
words before it marks a tool against the thing, not for it (`RemoveWindowsAI`: 'remove windows
ai'; 'disable Copilot and AI features'). A text naming the keyword once negated and once not
('Run LLMs locally without a GPU') still counts.

A keyword of three letters or fewer ('ai', 'llm', 'gpt') must be a whole word of the text, the
name's camelCase and digit boundaries counting as word breaks (`ChatGPTNextWeb` reads 'chat gpt
next web'); a longer one may sit anywhere, punctuation aside ('llama' in `LLaMA-Factory`,
'machinelearning' in `awesome-machine-learning`). Descriptions come from the GitHub API for the
tracked repositories and from the daily ranking files for the others (`shu.sources.ranking_about`),
so dify ('agentic workflow') or open-webui ('AI interface') are kept though their names say
nothing of it; a repository the store knows only by name (imported from a long table alone) is
judged on its name, and left out with the rest when it says nothing, which the section says.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable
from functools import lru_cache

from shu.settings import Settings

# Words that mark a repository as ML-framework business, in names and descriptions.
ML_TERMS = (
    "ai",
    "ml",
    "llm",
    "llms",
    "gpt",
    "glm",
    "nlp",
    "gpu",
    "jax",
    "rag",
    "mlx",
    "tts",
    "asr",
    "cuda",
    "cudnn",
    "rocm",
    "onnx",
    "tpu",
    "torch",
    "tensor",
    "keras",
    "mxnet",
    "caffe",
    "paddle",
    "deeplearning",
    "machinelearning",
    "neural",
    "inference",
    "transformer",
    "diffusion",
    "llama",
    "deepseek",
    "deepspeed",
    "qwen",
    "mistral",
    "gemma",
    "whisper",
    "embedding",
    "triton",
    "quantiz",
    "gguf",
    "vllm",
    "mlops",
    "yolo",
    "comfyui",
    "langchain",
    "agentic",
    "openai",
    "huggingface",
    # what a repository does, as descriptions say it (read across word breaks: "fine-tuning")
    "reinforcementlearning",
    "finetun",
    "computervision",
    "languagemodel",
    "chatbot",
    "aiagent",
    "aiassistant",
    "aicoding",
    "codingagent",
)
SHORT = 3  # keywords this long or shorter match whole words only
# Words that count in a name only: in 2026 descriptions "AI" marks a bootcamp, a dashboard
# builder or an IDE plugin as often as an ML project ("AI Software Development Bootcamp").
NAME_ONLY = ("ai",)

# Words that, among the NEGATION_WORDS words before a keyword, make it a mention against it.
NEGATING = frozenset(
    (
        "remove",
        "removes",
        "removed",
        "removing",
        "removal",
        "remover",
        "disable",
        "disables",
        "disabled",
        "disabling",
        "disabler",
        "block",
        "blocks",
        "blocking",
        "blocker",
        "uninstall",
        "uninstaller",
        "debloat",
        "debloater",
        "strip",
        "strips",
        "without",
        "anti",
        "kill",
        "kills",
    )
)
NEGATION_WORDS = 3

_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z][a-z]*|[a-z]+|\d+")


def radar_keywords(settings: Settings) -> tuple[str, ...]:
    """The keywords the radar keeps repositories by: `settings.radar_keywords` when set (an
    empty tuple: no filter), else ML_TERMS, the tracked repositories' names and the topics'
    terms, lowercased and without repeats."""
    if settings.radar_keywords is not None:
        given: Iterable[str] = settings.radar_keywords
    else:
        given = (
            *ML_TERMS,
            *(r.repo.split("/", 1)[1] for r in settings.repos),
            *(t.term or t.name for t in settings.topics),
        )
    return tuple(dict.fromkeys(k.strip().lower() for k in given if k.strip()))


def word_list(text: str) -> list[str]:
    """The words of a name or description in order, lowercased: split at anything not a letter
    or digit, and at camelCase and digit boundaries. Joined, they read `flat(text)`."""
    return [w.lower() for part in re.split(r"[^A-Za-z0-9]+", text) for w in _CAMEL.findall(part)]


def words(text: str) -> set[str]:
    """The words of a name or description, lowercased (`word_list` without order)."""
    return set(word_list(text))


def flat(text: str) -> str:
    """`text` lowercased with everything but letters and digits removed: 'Machine-Learning'
    and 'machine_learning' both read 'machinelearning'."""
    return re.sub(r"[^a-z0-9]+", "", text.lower())


def matches(keywords: tuple[str, ...], repo: str, description: str | None = None) -> bool:
    """Whether the repository's own name (`repo` without its owner) carries one of `keywords`,
    or its description one of them besides the NAME_ONLY words, in a mention not negated
    (always true when there are none)."""
    if not keywords:
        return True
    name = repo.split("/", 1)[-1]
    return carries(name, keywords) or carries(description or "", _described(keywords))


@lru_cache(maxsize=32)
def _described(keywords: tuple[str, ...]) -> tuple[str, ...]:
    """The `keywords` a description is searched for: all but the NAME_ONLY words."""
    return tuple(k for k in keywords if flat(k) not in NAME_ONLY)


@lru_cache(maxsize=32)
def _flat_keys(keywords: tuple[str, ...]) -> tuple[str, ...]:
    """`keywords` as `carries` compares them (`flat`), the empty ones left out, in order. The
    radar matches thousands of repositories against the same few hundred keywords: flattened
    once per keyword list, not once per repository."""
    return tuple(key for key in (flat(k) for k in keywords) if key)


def carries(text: str, keywords: Iterable[str]) -> bool:
    """Whether `text` names one of `keywords` at least once not negated: a keyword of SHORT
    letters or fewer as a whole word, a longer one anywhere (across word breaks too)."""
    found = word_list(text)
    present = set(found)
    starts, at = [], 0  # where each word starts in the flat text
    for w in found:
        starts.append(at)
        at += len(w)
    joined = "".join(found)
    for key in _flat_keys(tuple(keywords)):
        if len(key) <= SHORT:
            if key not in present:  # the common case, without a scan of the words
                continue
            hits = [i for i, w in enumerate(found) if w == key]
        else:
            if key not in joined:
                continue
            offsets = [m.start() for m in re.finditer(re.escape(key), joined)]
            hits = [bisect_right(starts, o) - 1 for o in offsets]
        if any(not _negated(found, i) for i in hits):
            return True
    return False


def _negated(found: list[str], i: int) -> bool:
    """Whether a NEGATING word stands among the NEGATION_WORDS words before word `i`."""
    return any(w in NEGATING for w in found[max(0, i - NEGATION_WORDS) : i])
