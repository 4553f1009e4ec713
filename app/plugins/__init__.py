"""The plugin machinery: what a connector is, the hooks, finding and loading plugins, the live set.

`connector` (the base class), `hookspecs` (the hooks), `loading` (entry points and the user's
plugin folder, one report per load), `user_files` (plugin files and the disabled list),
`report` (what loaded and what failed) and `plugin_set` (the connectors and tools in use, reloaded
while Hearth runs). Plugins use the names `hearth` exports, never these modules.
"""
