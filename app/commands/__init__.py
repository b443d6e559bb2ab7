"""The commands: one registry that the palette and the composer's `/` read, and what each command does."""
