"""`hearth eval`: run the scenario and injection suites and write the report."""

from __future__ import annotations

import fnmatch
import json
import time
from datetime import datetime
from pathlib import Path

import click

from hearth import ChatModel, HearthError, data_dir, load_model, shown
from hearth.connectors.evaluation.environment import Environment
from hearth.connectors.evaluation.report import markdown, outcome_record, summarise
from hearth.connectors.evaluation.runner import Outcome, run_scenario
from hearth.connectors.evaluation.scenario import SUITES, Scenario, load_suite


@click.command("eval")
@click.option(
    "--model",
    "model_spec",
    metavar="ID|FILE|URL",
    help="A catalog id, a .gguf file or an OpenAI-compatible server; default: the best installed.",
)
@click.option(
    "--suite",
    type=click.Choice([*SUITES, "all"]),
    default="all",
    show_default=True,
    help="The built-in tasks, the injection attacks, or both.",
)
@click.option(
    "--only", "patterns", multiple=True, metavar="GLOB", help="Run only scenarios whose id fits."
)
@click.option(
    "--scenarios",
    "extra",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="Also run the scenario files in this file or folder.",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where report.json and report.md go; default: a new folder under Hearth's data.",
)
@click.option("--max-tokens", default=512, show_default=True, help="Per model reply.")
@click.option("--think/--no-think", default=False, show_default=True, help="Reasoning mode.")
@click.option("--list", "list_only", is_flag=True, help="List the scenarios and exit.")
def evaluate(
    model_spec: str | None,
    suite: str,
    patterns: tuple[str, ...],
    extra: tuple[Path, ...],
    out: Path | None,
    max_tokens: int,
    think: bool,
    list_only: bool,
) -> None:
    """Score Hearth on scenarios over real loopback servers, judged by what changed.

    Each scenario loads mail into Dovecot, events into Radicale, files and the laptop's
    settings, runs the agent with a careful auto-approver and compares the world before and
    after. Exits 1 if any injection scenario executed an unauthorised side effect.
    """
    suites = SUITES if suite == "all" else (suite,)
    try:
        scenarios = load_suite(suites, extra)
    except HearthError as error:
        raise click.ClickException(shown(str(error))) from None
    if patterns:
        scenarios = [s for s in scenarios if any(fnmatch.fnmatch(s.id, p) for p in patterns)]
    if list_only:
        for scenario in scenarios:
            # A scenario file given with --scenarios may come from anywhere.
            line = (
                f"{shown(scenario.id):40} {shown(scenario.category):11} {shown(scenario.summary)}"
            )
            click.echo(line)
        return
    if not scenarios:
        raise click.ClickException("No scenario fits --only.")
    folder = out or data_dir() / "eval" / datetime.now().strftime("%Y%m%d-%H%M%S")
    try:
        model = load_model(model_spec)
    except HearthError as error:
        raise click.ClickException(shown(str(error))) from None
    name = model.info.name
    outcomes = _run_all(scenarios, model, max_tokens, think)
    summary = summarise(outcomes)
    table = markdown(summary, name)
    folder.mkdir(parents=True, exist_ok=True)
    report = {
        "model": name,
        "started": datetime.now().astimezone().isoformat(timespec="seconds"),
        "summary": summary,
        "scenarios": [outcome_record(outcome) for outcome in outcomes],
    }
    (folder / "report.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    (folder / "report.md").write_text(table)
    click.echo("\n" + shown(table, lines=True))  # it names the model and the scenarios
    click.echo(f"Report: {folder / 'report.json'} and report.md")
    if summary["unauthorised_side_effects"]["injection"]:
        raise SystemExit(1)


def _run_all(
    scenarios: list[Scenario], model: ChatModel, max_tokens: int, think: bool
) -> list[Outcome]:
    outcomes = []
    try:
        with Environment() as environment:
            for number, scenario in enumerate(scenarios, 1):
                started = time.monotonic()
                outcome = run_scenario(
                    environment, scenario, model, max_tokens=max_tokens, think=think
                )
                outcomes.append(outcome)
                mark = "pass" if outcome.success else "FAIL"
                note = f"  {shown(outcome.error)}" if outcome.error else ""
                click.echo(
                    f"[{number:>3}/{len(scenarios)}] {mark} {shown(scenario.id)}"
                    f" ({time.monotonic() - started:.1f}s){note}"
                )
    except HearthError as error:
        raise click.ClickException(shown(str(error))) from None
    finally:
        model.close()
    return outcomes
