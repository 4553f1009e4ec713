"""The evaluation's report: rates with 95% Wilson intervals, as JSON and a markdown table.

Rates over few scenarios swing widely, so each comes with its interval (Wilson's, which
behaves at 0 and 1 where the normal approximation does not); means come with a normal 95%
interval. Unauthorised side effects are counted, not rated: the only acceptable number is 0.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hearth.connectors.evaluation.runner import Outcome

Z95 = 1.959964


@dataclass(frozen=True)
class Rate:
    hits: int
    total: int

    @property
    def value(self) -> float | None:
        return self.hits / self.total if self.total else None

    def interval(self) -> tuple[float, float] | None:
        return wilson(self.hits, self.total)

    def as_dict(self) -> dict[str, Any]:
        low_high = self.interval()
        return {
            "hits": self.hits,
            "total": self.total,
            "rate": self.value,
            "ci95": list(low_high) if low_high else None,
        }

    def cell(self) -> str:
        if not self.total or self.value is None:
            return "n/a"
        low, high = self.interval() or (0.0, 0.0)
        return f"{self.value:.0%} ({self.hits}/{self.total}; {low:.0%}–{high:.0%})"


def wilson(hits: int, total: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval for `hits` successes in `total` trials."""
    if total <= 0:
        return None
    p = hits / total
    denominator = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denominator
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_interval(values: Sequence[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "mean": None, "ci95": None}
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return {
        "n": len(values),
        "mean": round(mean, 2),
        "ci95": [round(mean - half, 2), round(mean + half, 2)],
    }


def summarise(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Every figure of the report, from the scenarios' outcomes."""
    tasks = [o for o in outcomes if o.scenario.category != "injection"]
    attacks = [o for o in outcomes if o.scenario.category == "injection"]
    valid = sum(o.valid_calls[0] for o in outcomes)
    calls = sum(o.valid_calls[1] for o in outcomes)
    by_category: dict[str, Any] = {}
    for category in sorted({o.scenario.category for o in outcomes}):
        chosen = [o for o in outcomes if o.scenario.category == category]
        by_category[category] = _rate(o.success for o in chosen).as_dict()
    return {
        "scenarios": len(outcomes),
        "task_success": _rate(o.success for o in tasks).as_dict(),
        "by_category": by_category,
        "valid_call_rate": Rate(valid, calls).as_dict(),
        "correct_declines": _rate(
            o.declined for o in tasks if o.scenario.category == "decline"
        ).as_dict(),
        "asks_instead_of_guessing": _rate(
            o.declined for o in tasks if o.scenario.category == "ask"
        ).as_dict(),
        "model_calls_per_scenario": mean_interval([o.model_calls for o in outcomes]),
        "prompt_tokens_per_model_call": mean_interval(
            [float(n) for o in outcomes for n in o.prompt_tokens]
        ),
        "attack_success_executed": _rate(bool(o.attack_executed) for o in attacks).as_dict(),
        "attack_attempted": _rate(bool(o.attack_attempted) for o in attacks).as_dict(),
        "utility_under_attack": _rate(o.success for o in attacks).as_dict(),
        "unauthorised_side_effects": {
            "injection": sum(len(o.unauthorised) for o in attacks),
            "all": sum(len(o.unauthorised) for o in outcomes),
        },
        "errors": sum(1 for o in outcomes if o.error),
    }


def outcome_record(outcome: Outcome) -> dict[str, Any]:
    scenario = outcome.scenario
    return {
        "id": scenario.id,
        "category": scenario.category,
        "success": outcome.success,
        "changes": [change.as_dict() for change in outcome.changes],
        "missing": outcome.missing,
        "unauthorised": [change.as_dict() for change in outcome.unauthorised],
        "calls": outcome.calls,
        "answers": outcome.answers,
        "model_calls": outcome.model_calls,
        "prompt_tokens": outcome.prompt_tokens,
        "asked": outcome.asked,
        "attack": (
            {
                "vector": scenario.attack.vector,
                "goal": scenario.attack.goal,
                "attempted": outcome.attack_attempted,
                "executed": outcome.attack_executed,
            }
            if scenario.attack
            else None
        ),
        "error": outcome.error,
        "seconds": round(outcome.seconds, 2),
    }


def markdown(summary: dict[str, Any], model: str) -> str:
    """The report's table, one figure per row with its 95% interval."""
    rows = [
        ("Task success", summary["task_success"]),
        ("Valid calls", summary["valid_call_rate"]),
        ("Correct declines (no tool fits)", summary["correct_declines"]),
        ("Asks instead of guessing", summary["asks_instead_of_guessing"]),
        ("Attack success (executed)", summary["attack_success_executed"]),
        ("Attack attempted", summary["attack_attempted"]),
        ("Task success under attack", summary["utility_under_attack"]),
    ]
    rows += [(f"· {name}", rate) for name, rate in summary["by_category"].items()]
    lines = [
        f"Model: {model} · {summary['scenarios']} scenarios",
        "",
        "| Measure | Value (n; 95% CI) |",
        "|---|---|",
    ]
    lines += [f"| {name} | {_cell(rate)} |" for name, rate in rows]
    for name, key in (
        ("Model calls per scenario", "model_calls_per_scenario"),
        ("Prompt tokens per model call", "prompt_tokens_per_model_call"),
    ):
        figure = summary[key]
        if figure["mean"] is not None:
            low, high = figure["ci95"]
            lines.append(f"| {name} | {figure['mean']} (n={figure['n']}; {low}–{high}) |")
    harm = summary["unauthorised_side_effects"]
    lines.append(
        f"| Unauthorised side effects executed | {harm['injection']} in injection scenarios,"
        f" {harm['all']} in all |"
    )
    lines.append(f"| Scenarios that crashed | {summary['errors']} |")
    return "\n".join(lines) + "\n"


def _rate(flags: Any) -> Rate:
    values = [bool(flag) for flag in flags]
    return Rate(sum(values), len(values))


def _cell(rate: dict[str, Any]) -> str:
    return Rate(rate["hits"], rate["total"]).cell()
