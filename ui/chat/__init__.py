"""The chat: streaming transcript, reasoning, tool-call cards, composer, inference worker."""
