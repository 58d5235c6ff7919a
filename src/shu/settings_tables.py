"""The tables of shu.toml (`[[repos]]`, `[[questions]]`, `[[topics]]`, `[[claims]]`): the model of
each entry, with its keys' help, and the defaults shu ships with. `shu.settings` reads them into
`Settings` (and re-exports these names)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class TrackedRepo(BaseModel):
    """A repository shu watches, and the category its peers are compared within."""

    model_config = ConfigDict(extra="forbid")

    repo: str = Field(description="GitHub 'owner/name'.", pattern=r"^[\w.-]+/[\w.-]+$")
    category: str | None = Field(
        default=None,
        description="Peer group: any name; tracked repositories sharing it are compared. "
        "Left out, the repository's category in `field` (so the cards and the field view "
        "speak of one category); a repository not in `field` must name one.",
    )


class DeclaredQuestion(BaseModel):
    """A question a user asks in shu.toml (`[[questions]]`), issued with every forecast run (the
    template's own threshold rule is not applied). Whether it can be issued is the forecaster's
    to say (`shu.forecast.questions.registry.check_declared_questions`, run by every command
    after the settings load, and at issue): one line either way."""

    model_config = ConfigDict(extra="forbid")

    repo: str = Field(description="GitHub 'owner/name'.", pattern=r"^[\w.-]+/[\w.-]+$")
    template: str = Field(
        description="A binary template, e.g. 'star_accel_reach', "
        "'star_accel_fall', 'star_velocity_level', 'star_gain', "
        "'rocm_share_reach' (a share), 'rocm_release_mention'."
    )
    threshold: float = Field(description="X in the template's question (its unit).")
    horizon: int = Field(description="Horizon in days (a trained one: 7, 30 or 90).", ge=1)


class Topic(BaseModel):
    """A topic shu can attribute activity to (e.g. rocm-adoption), defined by regex patterns."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="Topic slug, e.g. 'rocm-adoption'.")
    pattern: str = Field(
        description="Case-insensitive Python regex over commit subjects/paths, "
        "release notes and documents."
    )
    flag_column: str | None = Field(
        default=None, description="Boolean column on `commits` this topic fills."
    )
    term: str | None = Field(
        default=None,
        description="The term the briefing's context "
        "questions ask about (e.g. 'ROCm'); defaults to the name.",
    )


DEFAULT_REPOS = [
    # their categories of the default field watchlist, written out so that a shu.toml's own
    # [field] table leaves them as they are
    TrackedRepo(repo="pytorch/pytorch", category="training frameworks"),
    TrackedRepo(repo="tensorflow/tensorflow", category="training frameworks"),
    TrackedRepo(repo="ollama/ollama", category="local-model apps"),
]

ROCM_PATTERN = r"rocm|\bhip\b|hipify|amdgpu|\bamd\b|gfx9|gfx1|mi300|mi250|miopen|rccl"

DEFAULT_TOPICS = [
    Topic(name="rocm-adoption", pattern=ROCM_PATTERN, flag_column="touches_rocm", term="ROCm"),
    Topic(name="tpu-support", pattern=r"\btpus?\b|\bxla\b|pjrt", term="TPU"),
    Topic(
        name="compiler-uplift",
        pattern=r"inductor|torch\.compile|\btriton\b|dynamo",
        term="torch.compile",
    ),
    Topic(
        name="quantization",
        pattern=r"quantiz|\bint[48]\b|\bfp8\b|gguf|\bawq\b|\bgptq\b",
        term="quantization",
    ),
]

DEFAULT_ALIASES = {"jmorganca/ollama": "ollama/ollama"}


class ConfiguredClaim(BaseModel):
    """A hardware/compiler claim to check against every probe run it applies to (`shu claims`).

    Same vocabulary as the `claims` table: e.g. `{ id = "softmax_2x", text = "Compiled softmax
    is at least 2x eager", metric = "speedup", workload = "softmax", comparison = "at least",
    value = 2.0 }`. Without device/backend it is checked on the latest run of every backend.
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Stable id, e.g. 'inductor_geomean_1_5x'.")
    text: str = Field(description="The claim as a sentence (shown in reports).")
    metric: str = Field(
        description="'speedup', 'TFLOP/s', 'GB/s', 'fraction_of_ceiling', "
        "'relative' (time of workload / eager time of baseline kernel) or "
        "'build' (workload 'rocm': the torch build reports HIP)."
    )
    workload: str = Field(
        default="suite",
        description="A probe kernel, 'suite' (geomean), "
        "'matmul' or 'copy' (measured ceilings), or 'rocm' for 'build'.",
    )
    comparison: str = Field(
        default="at least",
        description="'about', 'up to', 'at least', 'at most', 'between', 'within' or 'no speedup'.",
    )
    value: float | None = Field(default=None, description="Claimed value (fractions for %).")
    value_high: float | None = Field(default=None, description="High end for 'between'.")
    tolerance: float | None = Field(
        default=None,
        description="Relative tolerance for 'about'/'within' (default: claim_tolerance).",
    )
    device: str | None = Field(default=None, description="Device class (H100, MI300X, CPU…).")
    backend: str | None = Field(default=None, description="'cuda', 'rocm', 'cpu' or 'mps'.")
    dtype: str | None = Field(default=None, description="dtype the claim is about.")
    baseline: str | None = Field(
        default="eager", description="What it compares against (a kernel for metric 'relative')."
    )


DEFAULT_CLAIMS = [
    ConfiguredClaim(
        id="inductor_geomean_1_5x",
        text="Inductor gives >= 1.5x over eager on average on this backend",
        metric="speedup",
        value=1.5,
    ),
    ConfiguredClaim(
        id="rocm_inductor_geomean_1_5x",
        text="Inductor gives >= 1.5x over eager on average on AMD GPUs (ROCm)",
        metric="speedup",
        value=1.5,
        backend="rocm",
    ),
    ConfiguredClaim(
        id="torch_build_supports_rocm",
        text="This PyTorch build supports ROCm",
        metric="build",
        workload="rocm",
        baseline=None,
    ),
    ConfiguredClaim(
        id="layernorm_gelu_30pct_copy_bw",
        text="Compiled layernorm+GELU reaches >= 30% of the device's copy bandwidth",
        metric="fraction_of_ceiling",
        workload="layernorm_gelu",
        value=0.30,
        baseline="copy",
    ),
    ConfiguredClaim(
        id="gemm_epilogue_70pct_matmul_peak",
        text="A compiled GEMM with a "
        "bias+ReLU epilogue reaches >= 70% of the device's measured matmul rate",
        metric="fraction_of_ceiling",
        workload="gemm_bias_relu",
        value=0.70,
        baseline="matmul",
    ),
    ConfiguredClaim(
        id="naive_attention_fused_to_sdpa_speed",
        text="Inductor makes naive attention as fast as fused SDPA (within 10%)",
        metric="relative",
        workload="naive_attention",
        comparison="at most",
        value=1.10,
        baseline="sdpa",
    ),
]
