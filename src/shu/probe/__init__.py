"""The live probe: TorchInductor against eager on whatever hardware is present.

Runs anywhere torch runs (`python -m shu.probe --suite full --out result.json`): it imports
only torch and the standard library (the GPU hosts have no duckdb, prefect or pydantic), so
this package must never import `shu.settings`, `shu.store` or anything that pulls them in.
Importing the package itself does not import torch either: `FORMAT_VERSION` is read by the
ingest side (`shu.probe_ingest`) on machines that may lack torch.

Modules: `environment` (backend, versions, clocks, compile-cache state), `timing` (interleaved
device-side timing with an L2 flush and hidden launch overhead, plus the reference timers),
`suite` (the fixed, versioned kernel suite), `runner` (measures each kernel, gates it on
correctness and recompiles, then records what Inductor made of it, summarises), `inductor`
(reads Inductor's output code: generated kernels, library calls, substitutions), `__main__`
(the command line).
"""

FORMAT_VERSION = 1
"""Version of the JSON document `runner.run_probe` produces (bump on incompatible change; an
added field such as a result's `inductor` record is compatible: older documents lack it and
still ingest)."""
