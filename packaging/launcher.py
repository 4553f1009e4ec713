"""The frozen bundle's entry point: the `hearth` command (no subcommand opens the window)."""

import multiprocessing

from hearth.cli.main import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a frozen child process must not start Hearth again
    main()
