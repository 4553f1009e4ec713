"""Changes a person makes to the rule book: edit a rule, set a connector's default."""

from __future__ import annotations

from dataclasses import dataclass

from hearth.consent.rules import ConsentError, Decision, Rule, RuleBook
from hearth.consent.scopes import pin_scope
from hearth.plugins.connector import Connector
from hearth.ruling import Duration
from hearth.tools import ToolRegistry


@dataclass(frozen=True)
class RuleChange:
    """What the user chose in the editor; `scope` None means any resource.

    `after_untrusted` keeps an allow rule allowing side effects after the conversation read
    untrusted content; it means nothing for ask or deny, so it is dropped for them.
    """

    decision: Decision
    scope: str | None
    duration: Duration
    after_untrusted: bool = False


def replace_rule(rules: RuleBook, tools: ToolRegistry, old: Rule, change: RuleChange) -> Rule:
    """Swap `old` for a rule with the change applied; the audit log keeps naming the old one.

    The new rule is added before the old one is revoked: deny beats allow, so a tightened rule
    is never briefly missing.
    """
    scope = _pinned_scope(tools, old.tool, change.scope)
    new = Rule.create(
        old.tool,
        change.decision,
        now=rules.clock(),
        scope=scope,
        duration=change.duration,
        conversation_id=old.conversation_id,
        source="user",
        after_untrusted=change.after_untrusted and change.decision == "allow",
    )
    rules.add(new)
    rules.revoke(old.id)
    return new


def _pinned_scope(tools: ToolRegistry, tool_name: str, scope: str | None) -> str | None:
    """Folder scopes are stored as real paths, as the gate stores grants."""
    text = (scope or "").strip()
    if not text:
        return None
    tool = tools.get(tool_name)
    if tool is None:
        return text
    pinned = pin_scope(tool, text)
    if pinned is None:
        raise ConsentError(f"{text!r} is not a full folder path; use one like ~/Documents")
    return pinned


def connector_pattern(connector: Connector, tools: ToolRegistry) -> str | None:
    """The tool pattern covering every tool of `connector`, or None when names do not allow it.

    A rule's tool is one name or a `prefix.*` pattern, so a single rule covers a connector only
    when all its tools are named `<connector>.<something>`.
    """
    names = [tool.name for tool in tools.by_connector(connector.name)]
    prefix = f"{connector.name}."
    if not names or not all(name.startswith(prefix) for name in names):
        return None
    return f"{connector.name}.*"


def connector_default(rules: RuleBook, pattern: str) -> Rule | None:
    """The live rule deciding every call of a connector's tools, if there is one."""
    defaults = _defaults(rules, pattern)
    return defaults[-1] if defaults else None


def set_connector_default(rules: RuleBook, pattern: str, decision: Decision) -> Rule | None:
    """Make `decision` the connector-wide rule; "ask" removes it (no rule means ask)."""
    current = connector_default(rules, pattern)
    if current is not None and current.decision == decision:
        return current
    new = None
    if decision != "ask":
        new = rules.add(Rule.create(pattern, decision, now=rules.clock(), source="user"))
    for old in _defaults(rules, pattern):
        if new is None or old.id != new.id:
            rules.revoke(old.id)
    return new


def _defaults(rules: RuleBook, pattern: str) -> list[Rule]:
    return [
        rule
        for rule in rules.live()
        if rule.tool == pattern and rule.scope is None and rule.duration == "always"
    ]
