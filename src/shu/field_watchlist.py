"""The field's default watchlist: the ML-infrastructure repositories the briefing's field view
(`shu.signals.field`) compares, grouped by category, as shipped with shu.

Chosen from the repositories the shared ranking files and git histories hold; the view needs
star counts only (these are not tracked repositories: no API ingest, no cards). A shu.toml
replaces the whole table with its own `[field]` table (`category = ["owner/name", ...]`).
Repositories without counts on the store (the ROCm stack and Triton are in the git histories but
not in the ranking files) are listed all the same: the view names them as missing, so a store
that gains their counts starts counting them. Each category lists at least
`shu.signals.field.MIN_COUNTED` repositories the ranking files count through 2026-02-28 (the
compilers' are NVIDIA's kernel modules, Taichi and CUDA.jl: the ranking files hold no recent
counts of TVM, Triton, ONNX, TensorRT, IREE or the ROCm repositories); a category counted over
fewer is flagged where the briefing shows its share.
"""

from __future__ import annotations

DEFAULT_FIELD: dict[str, list[str]] = {
    "training frameworks": [
        "pytorch/pytorch",
        "tensorflow/tensorflow",
        "keras-team/keras",
        "huggingface/transformers",
        "ml-explore/mlx",
        "PaddlePaddle/Paddle",
        "apache/mxnet",
        "huggingface/candle",
        "jax-ml/jax",
        "deepspeedai/DeepSpeed",
    ],
    "fine-tuning": [
        "unslothai/unsloth",
        "hiyouga/LlamaFactory",
        "karpathy/nanoGPT",
        "huggingface/peft",
    ],
    "inference and serving": [
        "vllm-project/vllm",
        "ggml-org/llama.cpp",
        "microsoft/onnxruntime",
        "ggml-org/whisper.cpp",
        "mozilla-ai/llamafile",
        "karpathy/llama2.c",
        "sgl-project/sglang",
        "huggingface/text-generation-inference",
        "Tencent/ncnn",
    ],
    "local-model apps": [
        "ollama/ollama",
        "open-webui/open-webui",
        "nomic-ai/gpt4all",
        "oobabooga/text-generation-webui",
        "mudler/LocalAI",
        "janhq/jan",
        "Mintplex-Labs/anything-llm",
        "zylon-ai/private-gpt",
        "chatboxai/chatbox",
        "lobehub/lobe-chat",
    ],
    "compilers, kernels and GPU stacks": [
        "triton-lang/triton",
        "apache/tvm",
        "Dao-AILab/flash-attention",
        "NVIDIA/open-gpu-kernel-modules",
        "taichi-dev/taichi",
        "JuliaGPU/CUDA.jl",
        "ROCm/ROCm",
        "ROCm/HIP",
        "tinygrad/tinygrad",
    ],
}
