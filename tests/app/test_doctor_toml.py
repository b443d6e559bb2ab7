"""`rivulet doctor`'s "Recommended settings (config.toml)" block pastes into config.toml
as it is (issue 38.6): valid TOML, every value one rivulet's config loader accepts."""

from __future__ import annotations

import itertools
import tomllib

import pytest

from rivulet.app.doctor import Doctor, DoctorProbe
from rivulet.app.doctor_run import render
from rivulet.core.config import Settings, load_settings

HEADER = "Recommended settings (config.toml):"


def _report(custom: bool, ws: bool | None, chained: bool | None, reasoning: str | None) -> Doctor:
    doctor = Doctor(Settings(base_url="http://127.0.0.1:9/v1", api_key="x"), timeout=1)
    doctor.report.probes.append(DoctorProbe("plain text", True, "answered: hi"))
    doctor._recommend(DoctorProbe("calls", custom), DoctorProbe("custom", custom),
                      DoctorProbe("reasoning", reasoning is not None, reasoning or ""),
                      DoctorProbe("chained", chained, "kept it" if chained else ""), DoctorProbe("ws", ws))
    return doctor


# Every recommendation the doctor can make: each probe's outcomes, crossed.
CASES = list(itertools.product([True, False], [True, False, None], [True, None],
                               [None, "summaries streamed", "raw reasoning text streamed (no summaries)"]))


@pytest.mark.parametrize(("custom", "ws", "chained", "reasoning"), CASES)
def test_the_recommended_block_is_toml_the_config_loader_accepts(custom, ws, chained, reasoning, tmp_path,
                                                                 monkeypatch):
    doctor = _report(custom, ws, chained, reasoning)
    printed = render(doctor.report)
    block = printed.split(HEADER, 1)[1].split("\n\n", 1)[0]
    parsed = tomllib.loads(block)  # the notes under it are TOML comments
    assert parsed == doctor.report.recommended
    config = tmp_path / "config.toml"
    config.write_text(block)
    monkeypatch.setenv("RIVULET_CONFIG", str(config))
    settings = load_settings()
    assert settings.model_dump(include=set(parsed)) == parsed
