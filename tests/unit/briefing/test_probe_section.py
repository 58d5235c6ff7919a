"""The probe's sentence in the briefing (after the body): a CPU run says how to read its
number."""

from __future__ import annotations

from shu.briefing.compose import compose_briefing


def _probe_body(store, settings, day) -> str:
    text = compose_briefing(store, day, settings).path.read_text(encoding="utf-8")
    appendix = text.split("\n## Appendix\n")[1]
    return appendix.split("### Probe and claims", 1)[1].split("\n### ", 1)[0]


def test_a_cpu_run_slower_than_eager_says_that_is_normal(filled, settings, day) -> None:
    filled.con.execute("UPDATE probe_runs SET geomean_speedup = 0.65 WHERE run_id = 'run1'")
    probe = _probe_body(filled, settings, day)
    assert "compiled kernels ran 0.65× " in probe
    sentence = probe.split("0.65× ", 1)[1]
    assert "On a CPU that is normal for kernels this small" in sentence
    assert "runs slower" in sentence


def test_a_cpu_run_faster_than_eager_is_read_as_a_cpu_run(filled, settings, day) -> None:
    probe = _probe_body(filled, settings, day)  # the sample's CPU run: 1.31×
    assert "compiled kernels ran 1.31× " in probe
    assert "This is a CPU run" in probe and "that is normal" not in probe


def test_a_gpu_run_has_no_cpu_sentence(filled, settings, day) -> None:
    filled.con.execute(
        "UPDATE probe_runs SET backend = 'cuda', device_name = 'NVIDIA H100 80GB HBM3', "
        "geomean_speedup = 0.65 WHERE run_id = 'run1'"
    )
    probe = _probe_body(filled, settings, day)
    assert "compiled kernels ran 0.65× " in probe
    assert "CPU" not in probe
