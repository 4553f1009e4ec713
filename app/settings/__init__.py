"""A connector's settings: the stored model (`model`, secrets in the keyring), form (`forms`)."""
