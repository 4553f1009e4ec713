"""Package data: the model catalog, prompts, icons and styles, read with importlib.resources."""
