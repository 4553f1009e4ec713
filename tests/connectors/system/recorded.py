"""A command runner that answers from recordings of real command output, for backends whose
service cannot run here (NetworkManager, macOS, Windows). Each test cites where its recorded
output's format comes from."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from hearth.connectors.system.commands import TIMEOUT_S, Output

Answer = Output | Callable[[], Output]


def said(stdout: str = "", returncode: int = 0, stderr: str = "") -> Output:
    """A recorded answer; the argv is filled in when it is given."""
    return Output((), returncode, stdout, stderr)


class RecordedRunner:
    """Answers each known argv with its recording; records every argv it was given.

    An argv it has no recording for is a test bug (the backend ran something unexpected), so
    it raises `AssertionError` rather than inventing an answer.
    """

    def __init__(self, answers: Mapping[tuple[str, ...], Answer], programs: Iterable[str]) -> None:
        self.answers = dict(answers)
        self.programs = set(programs)
        self.calls: list[tuple[str, ...]] = []
        self.timeouts: list[float] = []

    def which(self, program: str) -> str | None:
        return f"/usr/bin/{program}" if program in self.programs else None

    def run(self, argv: Sequence[str], timeout: float = TIMEOUT_S) -> Output:
        key = tuple(argv)
        assert all(isinstance(arg, str) for arg in key), key
        self.calls.append(key)
        self.timeouts.append(timeout)
        if key not in self.answers:
            raise AssertionError(f"no recording for {key!r}")
        answer = self.answers[key]
        output = answer() if callable(answer) else answer
        return Output(key, output.returncode, output.stdout, output.stderr)
