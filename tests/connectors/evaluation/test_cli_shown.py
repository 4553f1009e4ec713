"""`hearth eval --list` shows a scenario file's text, and the error about a broken one, through
`hearth.shown`: a file given with --scenarios may come from anywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from hearth.cli.main import cli
from tests.fixtures.spoofing import A_FEW, assert_safe


@pytest.mark.parametrize("spoof", A_FEW)
def test_a_scenarios_summary_and_a_broken_files_name_are_shown_escaped(
    tmp_path: Path, spoof: str
) -> None:
    scenario = tmp_path / "spoof.toml"
    # JSON's escapes are TOML's too: the file holds the spoof's characters themselves once read.
    scenario.write_text(
        f'id = "spoof"\ncategory = "decline"\nsummary = {json.dumps(spoof)}\nturns = ["Hi"]\n'
    )
    broken = tmp_path / f"{spoof}.toml"
    broken.write_text('id = "x"\ncategory = "single"\n')
    runner = CliRunner()
    # color: click would strip a spoof's ESC sequences from what is not a terminal
    listed = runner.invoke(
        cli, ["eval", "--list", "--only", "spoof", "--scenarios", str(scenario)], color=True
    )
    assert listed.exit_code == 0, listed.output
    assert listed.output.startswith("spoof ")
    assert_safe(listed.output, spoof, lines=True)
    refused = runner.invoke(cli, ["eval", "--list", "--scenarios", str(broken)], color=True)
    assert refused.exit_code == 1 and "summary: Field required" in refused.output
    assert_safe(refused.output, spoof, lines=True)
