"""The calendar connector: local ICS files and CalDAV accounts behind one set of tools."""
