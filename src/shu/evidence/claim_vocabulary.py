"""The vocabulary claim extraction reads passages with (`extract`): the devices, stacks,
workloads, dtypes and units a claim can name, and the patterns that find a figure, its
comparison ("up to", "at least", "within N%"), its baseline and a sentence or table boundary.
Every pattern is linear, so a 10 MB page stays fast."""

from __future__ import annotations

import re

NUMBER = r"(?:\d{1,3}(?:[,\u202f\u2009]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
RANGE = rf"(?<![\w.,/-])(?P<lo>{NUMBER})(?:\s*(?:-|–|to)\s*(?P<hi>{NUMBER}))?"

DEVICES = (
    ("H200", r"H200s?", "cuda"),
    ("H100", r"H100s?", "cuda"),
    ("A100", r"A100s?", "cuda"),
    ("V100", r"V100s?", "cuda"),
    ("B200", r"B200s?", "cuda"),
    ("L40S", r"L40S", "cuda"),
    ("MI300X", r"MI300X?s?", "rocm"),
    ("MI250", r"MI250X?s?", "rocm"),
    ("MI210", r"MI210s?", "rocm"),
    ("MI100", r"MI100s?", "rocm"),
    ("CPU", r"CPUs?", "cpu"),
)
DEVICE_PATTERN = re.compile(
    r"\b(?:" + "|".join(f"(?P<d{i}>{p})" for i, (_, p, _) in enumerate(DEVICES)) + r")\b"
)
STACK_PATTERN = re.compile(
    r"\b(?P<name>CUDA|ROCm|HIP|MIOpen|RCCL|rccl|cuDNN|cuBLAS|NCCL|hipBLASLt)"
    r"(?:™)?(?:\s+(?P<ver>\d+(?:\.\d+)+|\d+(?![\d.])))?\b"
)
STACK_BACKEND = {
    "cuda": "cuda",
    "cudnn": "cuda",
    "cublas": "cuda",
    "nccl": "cuda",
    "rocm": "rocm",
    "hip": "rocm",
    "miopen": "rocm",
    "rccl": "rocm",
    "hipblaslt": "rocm",
}

WORKLOADS = (
    (
        "naive_attention",
        r"naive attention|unfused attention|attention written out|"
        r"hand-written attention|plain attention",
    ),
    (
        "sdpa",
        r"\bSDPA\b|scaled[- ]dot[- ]product(?: attention)?|flash ?attention(?:-?\d)?|"
        r"fused attention|memory[- ]efficient attention",
    ),
    (
        "layernorm_gelu",
        r"layer ?norm(?:alization)?\s*(?:\+|and|with|followed by)?\s*GELU|"
        r"layernorm_gelu",
    ),
    ("softmax", r"\bsoftmax\b"),
    ("transformer_block", r"transformer (?:block|layer)"),
    (
        "gemm_bias_relu",
        r"(?:GEMM|matmul|matrix multipl\w*)\s*(?:with\s+)?(?:an?\s+)?"
        r"(?:fused\s+)?(?:bias|epilogue|\+\s*bias)|gemm_bias_relu",
    ),
    ("matmul", r"\bGEMMs?\b|\bmat(?:rix)?[- ]?mul(?:tipl(?:y|ies|ication)s?)?\b|\bmatmuls?\b"),
    (
        "copy",
        r"memory bandwidth|copy bandwidth|HBM\d?e? bandwidth|memcpy|device copy|"
        r"memory copy",
    ),
    ("all-reduce", r"all[- ]?reduce|collectives?\b"),
)
WORKLOAD_PATTERN = re.compile(
    "|".join(f"(?P<w{i}>{p})" for i, (_, p) in enumerate(WORKLOADS)), re.IGNORECASE
)
MODEL_NAME = re.compile(
    r"\b(?P<m>ResNet-?\d+|BERT[\w-]*|GPT-?\d[\w.-]*(?:\s+\d+B)?|T5\w*|"
    r"Llama[\w.-]*|CamemBert|DistilGPT2|DistillGPT2|VGG-?\d+|"
    r"(?:HuggingFace|Hugging Face)(?= models| benchmark| suite| transformers)|"
    r"\d+B(?: parameter)? model|LLMs?|CNNs?)\b",
    re.IGNORECASE,
)
SUITE_PATTERN = re.compile(
    r"\b(?:geomean|geometric mean|on average|average speed-?up|across the "
    r"suite)\b",
    re.IGNORECASE,
)
DTYPE_PATTERN = re.compile(
    r"\b(FP16|BF16|bfloat16|float16|half[- ]precision|FP32|float32|TF32|FP8|"
    r"INT8)\b",
    re.IGNORECASE,
)
DTYPES = {
    "fp16": "float16",
    "float16": "float16",
    "half-precision": "float16",
    "half precision": "float16",
    "bf16": "bfloat16",
    "bfloat16": "bfloat16",
    "fp32": "float32",
    "float32": "float32",
    "tf32": "tf32",
    "fp8": "fp8",
    "int8": "int8",
}

# number + unit: (regex, metric, unit, scale to the unit)
UNITS = (
    (
        r"(?:x|×|X)(?![\w\d])(?!\s*(?:AMD|NVIDIA|Instinct|GPUs?|nodes?|cards?|H\d|A\d|MI\d))",
        "speedup",
        "x",
        1.0,
    ),
    (
        r"-?fold\b|\s+times\s+(?=faster|quicker|the speed|higher throughput|speed-?up)",
        "speedup",
        "x",
        1.0,
    ),
    (r"PFLOP/?S\b|PFLOPS\b|petaflops\b", "TFLOP/s", "TFLOP/s", 1000.0),
    (r"TFLOP/?s\b|TFLOPS\b|TFLOP\s+per\s+second\b|teraflops\b", "TFLOP/s", "TFLOP/s", 1.0),
    (r"GFLOP/?s\b|GFLOPS\b", "TFLOP/s", "TFLOP/s", 0.001),
    (r"TB\s*/\s*s(?:ec)?\b|TBps\b|TB per second\b", "GB/s", "GB/s", 1000.0),
    (r"GB\s*/\s*s(?:ec)?\b|GBps\b|GB per second\b|GiB\s*/\s*s\b", "GB/s", "GB/s", 1.0),
    (r"ms\b|milliseconds?\b", "latency", "ms", 1.0),
    (r"(?:µs|μs|us|microseconds?)\b", "latency", "ms", 0.001),
    (r"(?:images?|imgs?)\s*(?:/|per\s+)\s*(?:s|sec|second)\b", "throughput", "images/s", 1.0),
    (r"tokens?\s*(?:/|per\s+)\s*(?:s|sec|second)\b", "throughput", "tokens/s", 1.0),
    (r"samples?\s*(?:/|per\s+)\s*(?:s|sec|second)\b", "throughput", "samples/s", 1.0),
    (r"%|\s+percent\b", "percent", "fraction", 0.01),
)
VALUE = re.compile(
    RANGE + r"\s*(?P<plus>\+)?\s*(?P<unit>" + "|".join(f"(?:{u})" for u, *_ in UNITS) + ")",
    re.IGNORECASE,
)
UNIT_RES = [
    (re.compile(u + "$", re.IGNORECASE), metric, unit, scale) for u, metric, unit, scale in UNITS
]
PREFIX_X = re.compile(r"(?<![\w])(?:x|×)\s?(?P<lo>\d+(?:\.\d+)?)(?![\w.]*\d)")
UNIT_FIRST = re.compile(
    r"\b(?P<unit>TFLOP/?s|TFLOPS|GB/s|speed-?up)\)?\s*(?:of|:|=|was|is)\s*"
    rf"(?:about\s+|~\s*)?(?P<lo>{NUMBER})(?!\s*(?:%|x|×|[A-Za-z]))",
    re.IGNORECASE,
)
QUICK = re.compile(
    r"\d\s*(?:[x×%]|-?fold|\s+times|\s*(?:[TGP]FLOP|[TG]B\s*/|[TG]Bps|ms\b|"
    r"µs|μs|us\b|micro|milli|images?|imgs?|tokens?|samples?|percent))|"
    r"[x×]\s?\d|(?:TFLOP/?s|TFLOPS|GB/s|speed-?up)\)?\s*(?:of|:|=|was|is)\s*"
    r"(?:about\s+|~\s*)?\d|\bno (?:\w+ )?speed-?ups?\b|\bnot (?:any )?faster\b",
    re.IGNORECASE,
)

BEFORE = (  # phrases that end the text right before a figure, checked with str.endswith
    ("up to", (" up to",)),
    (
        "at least",
        (
            " at least",
            " more than",
            " over",
            " above",
            " exceeds",
            " exceeding",
            " exceed",
            " in excess of",
            " better than",
            "≥",
            ">=",
            ">",
        ),
    ),
    ("at most", (" at most", " less than", " under", " below", " no more than", "≤", "<=", "<")),
    (
        "about",
        (
            " about",
            " around",
            " roughly",
            " approximately",
            " approx.",
            "~",
            "≈",
            " nearly",
            " close to",
            " almost",
        ),
    ),
)
AFTER_AT_LEAST = re.compile(r"^\s*(?:\+|or more\b|or better\b|or higher\b|and up\b)", re.IGNORECASE)
WITHIN = re.compile(r"\bwithin\s*(?:about\s+)?$", re.IGNORECASE)
OF_SPAN = re.compile(r"^\s*of\s+(?P<span>[^.;:!?]{1,80})", re.IGNORECASE)
PERF_NOUN = re.compile(
    r"\b(throughput|performance|bandwidth|speed|peak|rate|flops|tflop/?s|"
    r"ceiling|roofline|theoretical)\b",
    re.IGNORECASE,
)
CEILING = re.compile(
    r"\b(peak|ceiling|roofline|theoretical|copy bandwidth|memory bandwidth|"
    r"matmul rate|HBM bandwidth)\b",
    re.IGNORECASE,
)
SPEEDUP_WORD = re.compile(
    r"faster|speed-?ups?|speed up|performance|improvement|increase|"
    r"uplift|gains?\b|over eager|than eager|vs\.? eager|compared|"
    r"torch\.compile|inductor|compiled|slower",
    re.IGNORECASE,
)
PCT_SPEEDUP = re.compile(
    r"^\s*(?P<dir>faster|quicker|speed-?up|higher throughput|"
    r"improvement|performance (?:increase|improvement|uplift)|slower)\b",
    re.IGNORECASE,
)
NO_SPEEDUP = re.compile(
    r"\bno (?:measurable |real |significant |meaningful )?"
    r"(?:speed-?ups?|speed up|improvement|gain)\b|\bnot (?:any )?faster\b",
    re.IGNORECASE,
)
EAGER = re.compile(r"\beager\b|torch\.compile|inductor|compiled", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“(\[*])")
TABLE_SEP = re.compile(r"^\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
RATIO_HEADER = re.compile(r"^(?:ratio|relative|%|share|percent(?:age)?|of [\w ]+)$", re.IGNORECASE)
PAREN = re.compile(r"\(([^()]*)\)")
