"""The mail connector: IMAP reading, SMTP sending, an offline cache, injection-aware rendering."""
