"""`hearth eval`: Hearth's agent scored on scenarios over real servers, judged by what changed.

Each scenario loads a mailbox into Dovecot, calendars into Radicale, a file tree and the
laptop's settings, runs the real agent loop with a chosen model and an approver that follows
a stated policy, and compares the environment before and after (as AgentDojo and τ-bench do),
never the reply text.
"""
