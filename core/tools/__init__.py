"""What the model may run: the tool router, apply_patch, the shell, approvals,
confinement, the sandbox and the turn's diff."""
