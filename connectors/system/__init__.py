"""The system connector: Wi-Fi, volume, mute, brightness, do-not-disturb and the battery.

Each setting is read and changed through a `Control` backend for this OS (nmcli, wpctl, pactl,
sysfs, gsettings, networksetup, osascript, netsh, ...) that says whether it works here, and why
not when it does not. Commands are argument lists, never a shell, each with a time limit.
"""
