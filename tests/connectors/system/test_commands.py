"""The command runner: argument lists only, no shell, a time limit, the C locale."""

from __future__ import annotations

import time

import pytest

from hearth.connectors.system.commands import CommandRunner, Output
from hearth.connectors.system.errors import CommandFailed


def test_arguments_reach_the_program_as_given_never_through_a_shell(tmp_path: object) -> None:
    hostile = "40; touch /tmp/hearth-pwned $(id) `id` | cat"
    done = CommandRunner().run(["printf", "%s", hostile])
    assert (done.returncode, done.stdout) == (0, hostile)


def test_a_string_or_a_nul_is_our_bug_and_runs_nothing() -> None:
    with pytest.raises(TypeError):
        CommandRunner().run("printf hello")
    with pytest.raises(TypeError):
        CommandRunner().run(["printf", 40])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="NUL"):
        CommandRunner().run(["printf", "a\0b"])


def test_a_command_past_its_time_limit_is_stopped_and_reported() -> None:
    started = time.monotonic()
    with pytest.raises(CommandFailed, match=r"did not answer within 0\.3 s"):
        CommandRunner().run(["sleep", "30"], timeout=0.3)
    assert time.monotonic() - started < 10


def test_a_missing_program_is_a_clear_failure() -> None:
    with pytest.raises(CommandFailed, match="hearth-no-such-tool could not be started"):
        CommandRunner().run(["hearth-no-such-tool"])
    assert CommandRunner().which("hearth-no-such-tool") is None


def test_commands_run_in_the_c_locale_with_no_input() -> None:
    done = CommandRunner().run(["sh", "-c", 'echo "$LC_ALL"; cat'])
    assert done.stdout == "C\n"


def test_a_failed_command_names_itself_and_its_first_error_line() -> None:
    failed = Output(("pactl", "info"), 1, "", "Connection failure: Connection refused\nmore\n")
    refused = r"^pactl failed: Connection failure: Connection refused$"
    with pytest.raises(CommandFailed, match=refused):
        failed.checked()
    assert Output(("true",), 0).checked().returncode == 0
    with pytest.raises(CommandFailed, match="exit status 3"):
        Output(("false",), 3).checked()
