"""The configuration of one throwaway Dovecot instance, and the system users it runs as."""

from __future__ import annotations

import getpass
import os
from pathlib import Path

# Dovecot refuses uid 0 for mail users: as root, mail belongs to nobody/nogroup and Dovecot's
# own processes run as the users Debian's package creates. Otherwise all runs as oneself.
AS_ROOT = os.geteuid() == 0
MAIL_UID, MAIL_GID = (65534, 65534) if AS_ROOT else (os.getuid(), os.getgid())
SERVICE_USER, LOGIN_USER = ("dovecot", "dovenull") if AS_ROOT else (getpass.getuser(),) * 2
# Each is created with the special-use flag of its own name: Sent is \Sent.
SPECIAL_FOLDERS = ("Sent", "Drafts", "Trash", "Archive", "Junk")


def dovecot_config(
    root: Path, log_path: Path, hosts: tuple[str, ...], tls_port: int, starttls_port: int
) -> str:
    """Maildir for the passwd-file users under `root`, IMAPS and STARTTLS on `hosts`."""
    folders = "".join(
        f"  mailbox {name} {{\n    special_use = \\{name}\n    auto = subscribe\n  }}\n"
        for name in SPECIAL_FOLDERS
    )
    return (
        f"base_dir = {root}/run\n"
        f"state_dir = {root}/state\n"
        f"instance_name = hearth-test-{tls_port}\n"
        f"log_path = {log_path}\n"
        "protocols = imap\n"
        f"listen = {', '.join(hosts)}\n"
        f"default_internal_user = {SERVICE_USER}\n"
        f"default_login_user = {LOGIN_USER}\n"
        "ssl = yes\n"
        f"ssl_cert = <{root}/cert.pem\n"
        f"ssl_key = <{root}/key.pem\n"
        "ssl_min_protocol = TLSv1.2\n"
        # Only TLS connections may log in: STARTTLS first on the plain port.
        "disable_plaintext_auth = yes\n"
        "auth_mechanisms = plain login\n"
        "auth_verbose = yes\n"
        "passdb {\n  driver = passwd-file\n"
        f"  args = scheme=PLAIN username_format=%u {root}/passwd\n}}\n"
        "userdb {\n  driver = static\n"
        f"  args = uid={MAIL_UID} gid={MAIL_GID} home={root}/home/%u\n}}\n"
        "mail_location = maildir:~/Maildir\n"
        "first_valid_uid = 1\n"
        "namespace inbox {\n  inbox = yes\n  separator = /\n"
        "  mailbox INBOX {\n    auto = subscribe\n  }\n"
        f"{folders}}}\n"
        "service imap-login {\n"
        f"  inet_listener imap {{\n    port = {starttls_port}\n  }}\n"
        f"  inet_listener imaps {{\n    port = {tls_port}\n    ssl = yes\n  }}\n"
        "}\n"
    )
