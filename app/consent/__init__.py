"""Consent: rules, scopes and taint decide every tool call; the model only proposes."""

from hearth.consent.gate import ConsentGate, Verdict, describe_sources, describe_taint
from hearth.consent.outside import OutsideText
from hearth.consent.rules import (
    UNTRUSTED_WARNING,
    ConsentError,
    Decision,
    Rule,
    RuleBook,
    RulePersistence,
    RuleSource,
)
from hearth.consent.scopes import (
    cannot_scope,
    exact_scope,
    scope_matches,
    scope_suggestions,
    scope_words,
    unscoped_choice,
)
from hearth.consent.taint import (
    TaintNote,
    TaintTracker,
    clean_label,
    fence,
    fenced_source,
    unfence,
)
from hearth.ruling import Duration

__all__ = [
    "UNTRUSTED_WARNING",
    "ConsentError",
    "ConsentGate",
    "Decision",
    "Duration",
    "OutsideText",
    "Rule",
    "RuleBook",
    "RulePersistence",
    "RuleSource",
    "TaintNote",
    "TaintTracker",
    "Verdict",
    "cannot_scope",
    "clean_label",
    "describe_sources",
    "describe_taint",
    "exact_scope",
    "fence",
    "fenced_source",
    "scope_matches",
    "scope_suggestions",
    "scope_words",
    "unfence",
    "unscoped_choice",
]
