"""Consent: rules, scopes and taint decide every tool call; the model only proposes."""

from hearth.consent.gate import ConsentGate, Verdict, describe_taint
from hearth.consent.rules import (
    ConsentError,
    Decision,
    Rule,
    RuleBook,
    RulePersistence,
    RuleSource,
)
from hearth.consent.scopes import exact_scope, scope_matches, scope_suggestions
from hearth.consent.taint import TaintNote, TaintTracker, fence, unfence
from hearth.ruling import Duration

__all__ = [
    "ConsentError",
    "ConsentGate",
    "Decision",
    "Duration",
    "Rule",
    "RuleBook",
    "RulePersistence",
    "RuleSource",
    "TaintNote",
    "TaintTracker",
    "Verdict",
    "describe_taint",
    "exact_scope",
    "fence",
    "scope_matches",
    "scope_suggestions",
    "unfence",
]
