"""The rule book as a front end sees it: list, revoke and edit rules, and set connector defaults."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from hearth.consent.changes import (
    RuleChange,
    connector_default,
    connector_pattern,
    replace_rule,
    set_connector_default,
)
from hearth.consent.rules import Decision, Rule, RuleBook
from hearth.plugins.connector import Connector
from hearth.tools import Tool, ToolRegistry


class Permissions:
    """Every change a person makes to consent goes through here; each applies to the next call."""

    def __init__(
        self, rules: RuleBook, tools: ToolRegistry, connectors: Sequence[Connector]
    ) -> None:
        self._rules = rules
        self._tools = tools
        self._connectors = connectors

    def rules(self) -> list[Rule]:
        """Every rule, oldest first, including revoked, expired and used-up ones."""
        return self._rules.all()

    def rule(self, rule_id: str) -> Rule | None:
        return self._rules.get(rule_id)

    def tool(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def tools(self) -> list[Tool]:
        return list(self._tools)

    def add(self, rule: Rule) -> Rule:
        return self._rules.add(rule)

    def revoke(self, rule_id: str) -> Rule:
        return self._rules.revoke(rule_id)

    def edit(self, old: Rule, change: RuleChange) -> Rule:
        return replace_rule(self._rules, self._tools, old, change)

    def subscribe(self, listener: Callable[[Rule], None]) -> Callable[[], None]:
        """Call `listener` with each rule that changes, from whichever thread changed it."""
        self._rules.on_change.append(listener)
        return lambda: self._rules.on_change.remove(listener)

    def connector_tools(self, connector: Connector) -> list[Tool]:
        return self._tools.by_connector(connector.name)

    def connector_pattern(self, connector: Connector) -> str | None:
        """The `name.*` pattern one rule uses for all of a connector's tools, if names allow."""
        return connector_pattern(connector, self._tools)

    def connector_default(self, connector: Connector) -> Rule | None:
        pattern = self.connector_pattern(connector)
        return connector_default(self._rules, pattern) if pattern else None

    def set_connector_default(self, connector: Connector, decision: Decision) -> Rule | None:
        """Make `decision` the rule for all of a connector's tools; "ask" removes it."""
        pattern = self.connector_pattern(connector)
        if pattern is None:
            return None
        return set_connector_default(self._rules, pattern, decision)

    def connectors(self) -> list[Connector]:
        return list(self._connectors)
