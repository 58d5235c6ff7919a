"""The commands: `shu ingest probe`, `shu sql` on the probe tables, `shu claims`, `shu probe`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def shu(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SHU_DB"} | {"COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, "-m", "shu", *args], capture_output=True, text=True, timeout=300, env=env
    )


def test_ingest_sql_and_claims_on_the_gpu_run(store_path, h200_run, tmp_path):
    path = tmp_path / "h200.json"
    path.write_text(json.dumps(h200_run))
    first = shu("ingest", "probe", str(path), "--db", str(store_path))
    assert first.returncode == 0, first.stderr
    assert "7 inserted, 0 updated" in first.stdout
    again = shu("ingest", "probe", str(path), "--db", str(store_path))
    assert "0 inserted, 0 updated" in again.stdout
    sql = shu(
        "sql",
        "select kernel, speedup from probe_results order by kernel",
        "--csv",
        "--db",
        str(store_path),
    )
    assert sql.returncode == 0, sql.stderr
    lines = sql.stdout.strip().splitlines()
    assert lines[0] == "kernel,speedup" and len(lines) == 7
    claims = shu("claims", "--db", str(store_path))
    assert claims.returncode == 0, claims.stderr
    assert "supported" in claims.stdout and "untestable here" in claims.stdout


def test_a_malformed_file_is_one_line_and_exit_1(store_path, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    result = shu("ingest", "probe", str(path), "--db", str(store_path))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "bad.json: not valid JSON" in result.stderr


def test_probe_rejects_an_unknown_device_in_one_line(store_path, torch):
    result = shu("probe", "--device", "tpu", "--db", str(store_path))
    assert result.returncode == 1
    assert "--device must be auto, cuda, cpu or mps" in result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.gpu
def test_gpu_quick_suite_is_valid_and_agrees_with_do_bench(torch):
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA or ROCm device (torch.cuda.is_available() is False)")
    from shu.probe.runner import run_probe

    doc = run_probe(device="cuda", suite="quick")
    assert doc["summary"]["pass_rate"] == 1.0
    for r in doc["results"]:
        assert r["timer"] == "cuda_events_flush_primed"
        assert r["peak_bytes"]["compiled"] > 0
    deviation = doc["summary"]["do_bench_max_abs_deviation"]
    assert deviation is None or deviation <= 0.05


def test_probe_command_line_grammar(tmp_path):
    """`--json` is a switch (stdout), `--out PATH` a file, the older `--json PATH` still means
    `--out PATH`, and -h shows the examples."""
    from shu.probe.__main__ import parse_args

    switch = parse_args(["--json", "--suite", "full"])
    assert (switch.stdout, switch.out, switch.suite) == (True, None, "full")
    assert (parse_args(["--json", "-"]).stdout, parse_args(["--json", "-"]).out) == (True, None)
    old = parse_args(["--json", "run.json", "--device", "cpu"])
    assert (old.stdout, old.out, old.device) == (False, "run.json", "cpu")
    new = parse_args(["--out", "run.json", "--json"])
    assert (new.stdout, new.out) == (True, "run.json")
    with pytest.raises(SystemExit):
        parse_args(["--json", "a.json", "--out", "b.json"])
    helped = subprocess.run(
        [sys.executable, "-m", "shu.probe", "-h"], capture_output=True, text=True, timeout=120
    )
    assert helped.returncode == 0 and "--out PATH" in helped.stdout
    assert "python -m shu.probe --device cpu --suite full" in helped.stdout


def test_shu_probe_keeps_the_older_json_path_and_names_a_clash(store_path, torch):
    clash = shu("probe", "--json", "a.json", "--out", "b.json", "--db", str(store_path))
    assert clash.returncode == 1
    assert "--json a.json and --out b.json name two different files" in clash.stderr
    # the switch form parses (the run then stops at the unknown device, in one line)
    switch = shu("probe", "--json", "--device", "tpu", "--db", str(store_path))
    assert switch.returncode == 1 and "--device must be auto, cuda, cpu or mps" in switch.stderr
    stray = shu("probe", "run.json", "--db", str(store_path))
    assert stray.returncode == 1 and "unexpected argument(s) run.json" in stray.stderr
