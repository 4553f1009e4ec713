"""Voice input in the desktop app: the push-to-talk button, its meter and its recording."""
